/**
 * Which content coding to answer in, from `Accept-Encoding` (RFC 9110 §12.5.3), q-values,
 * `identity` and `*` honoured; among equals, the smallest for our JSON (br, zstd, gzip) wins.
 */
/** A coding an answer may be sent in; `identity` is the answer as made. */
export type Coding = 'br' | 'zstd' | 'gzip' | 'identity';

/** The codings the gateway makes, best first. */
export const CODINGS: readonly Coding[] = ['br', 'zstd', 'gzip'];

/** The coding to answer in, or undefined when the client accepts neither ours nor identity. */
export function negotiate(header: string | undefined, offered: readonly Coding[] = CODINGS): Coding | undefined {
  if (header === undefined || header === '') return 'identity';
  const q = parse(header);
  const star = q.get('*');
  let best: Coding | undefined;
  let bestQ = 0;
  for (const coding of offered) {
    const weight = q.get(coding) ?? (coding === 'gzip' ? q.get('x-gzip') : undefined) ?? star ?? 0;
    if (weight > bestQ) {
      best = coding;
      bestQ = weight;
    }
  }
  // identity wins only when named with a higher weight, and is acceptable unless refused (§12.5.3).
  const named = q.get('identity');
  if (best !== undefined && (named === undefined || bestQ >= named)) return best;
  return (named ?? (star === 0 ? 0 : 1)) > 0 ? 'identity' : best;
}

// Private: each coding's weight, lower-cased; malformed counts as 1, out of range is clamped, first wins.
function parse(header: string): Map<string, number> {
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.split(';');
    const coding = name!.trim().toLowerCase();
    if (coding === '' || weights.has(coding)) continue;
    let weight = 1;
    for (const param of params) {
      const [key, value] = param.split('=');
      if (key?.trim().toLowerCase() !== 'q' || value === undefined) continue;
      const parsed = Number(value.trim());
      if (Number.isFinite(parsed)) weight = Math.min(1, Math.max(0, parsed));
    }
    weights.set(coding, weight);
  }
  return weights;
}
