/**
 * `Vary`, built in one way for every answer of every door. Each concern that makes an answer
 * depend on a request header names it here and nowhere else writes the header's value:
 *
 * - the media type (`Accept`) and the API key headers: plugins/serving/use-http-caching.ts;
 * - the content coding (`Accept-Encoding`): edge/compression/answer.ts for GraphQL answers,
 *   plugins/explorer/static-asset.ts for files;
 * - the CORS headers (`Origin`, `Access-Control-Request-Headers`): edge/headers/cors.ts, through
 *   plugins/protection/use-cors.ts, which yoga's path runs last.
 *
 * A name is only ever added, never replaced: a writer that set `Vary` outright would drop what
 * an earlier one named, and a shared cache would then hand one variant to every client (a zstd
 * body to a browser without zstd). Names are kept once, compared case-insensitively (RFC 9110
 * §12.5.5), in the order they were first named; `*` stands for every name and absorbs them.
 */

/** `Vary`'s value: `existing` (an answer's header, when it has one) with `names` added, each once. */
export function varyWith(existing: string | null | undefined, names: readonly string[]): string {
  // The common case, an answer's first name (a stored answer's `Accept-Encoding` on every hit), builds nothing.
  if ((existing === null || existing === undefined || existing === '') && names.length === 1 && names[0] !== '*') return names[0]!;
  const all = existing === null || existing === undefined || existing === '' ? [] : existing.split(',');
  const kept: string[] = [];
  const seen = new Set<string>();
  for (const name of [...all, ...names]) {
    const trimmed = name.trim();
    const lower = trimmed.toLowerCase();
    if (lower === '*') return '*';
    if (trimmed === '' || seen.has(lower)) continue;
    seen.add(lower);
    kept.push(trimmed);
  }
  return kept.join(', ');
}
