/**
 * One target of the issues, judged: the shape every report file returns its targets in. It sits
 * apart so that the files judging targets (`live.ts`, `serving.ts`) and the one gathering them
 * (`results.ts`) need not import each other.
 */

/**
 * One target of the issue, judged. `met` is null where the issue sets no threshold, and
 * `'unmeasured'` where this run cannot judge it (a peer did not run, or its load generator was
 * the bottleneck): never met by default.
 */
export interface Target {
  what: string;
  target: string;
  actual: string;
  met: boolean | null | 'unmeasured';
}
