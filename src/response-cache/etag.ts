/** `If-None-Match` against a stored strong ETag, compared weakly (RFC 9110 §13.1.2). */
export function etagMatches(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false;
  if (ifNoneMatch.trim() === '*') return true;
  for (const candidate of ifNoneMatch.split(',')) {
    const tag = candidate.trim();
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === etag) return true;
  }
  return false;
}

/** The ETag of a stored answer's form in `coding` (`"…-br"`): each coding is a representation of its own. */
export function encodedEtag(etag: string, coding: string): string {
  return `${etag.slice(0, -1)}-${coding}"`;
}
