/**
 * ETags of stored answers: how a client's `If-None-Match` is matched, and the ETag of each
 * compressed form (each content coding is a representation of its own, RFC 9110 §8.8.3).
 */

/**
 * `If-None-Match` against a stored strong ETag, by RFC 9110 §13.1.2: `*` matches; otherwise a
 * comma-separated list of entity tags, compared weakly (a `W/` prefix is ignored).
 */
export function etagMatches(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false;
  if (ifNoneMatch.trim() === '*') return true;
  for (const candidate of ifNoneMatch.split(',')) {
    const tag = candidate.trim();
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === etag) return true;
  }
  return false;
}

/** The ETag of a stored answer's form in `coding`: its own inside the quotes, suffixed (`"…-br"`). */
export function encodedEtag(etag: string, coding: string): string {
  return `${etag.slice(0, -1)}-${coding}"`;
}
