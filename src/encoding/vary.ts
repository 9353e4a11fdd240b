/**
 * `Vary`, built one way for every answer of every door: each concern (media type and API key,
 * content coding, CORS) adds its names through here, never replacing the header, since a writer
 * that set it outright would make a shared cache hand one variant to every client. Names are kept
 * once, case-insensitively (RFC 9110 §12.5.5), in first-named order; `*` absorbs them all.
 */

/** `Vary`'s value: `existing` (an answer's header, when it has one) with `names` added, each once. */
export function varyWith(existing: string | null | undefined, names: readonly string[]): string {
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
