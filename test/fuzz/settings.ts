/**
 * How long and from which seed the fuzzers run. `npm test` runs a short pass from a fixed seed,
 * so it is the same every time; `npm run fuzz` sets `FUZZ_RUNS` (default 1000) and a random
 * seed unless `FUZZ_SEED` names one. A failure prints the seed and the shrunk case; rerun it with
 * `FUZZ_SEED=<seed> FUZZ_RUNS=<runs> npm run fuzz`.
 */
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import type { Parameters } from 'fast-check';

/** The seed of the short pass in `npm test`. */
const FIXED_SEED = 13;

/** Whether this is a long run (`npm run fuzz`). */
export const LONG_RUN = process.env.FUZZ_RUNS !== undefined && process.env.FUZZ_RUNS !== '';

/**
 * fast-check parameters for a property: `shortRuns` in `npm test`, `FUZZ_RUNS` in a long run;
 * the seed from `FUZZ_SEED`, else fixed in the short pass and random in a long one.
 */
export function fuzzParameters<T>(shortRuns: number): Parameters<T> {
  const runs = LONG_RUN ? Number(process.env.FUZZ_RUNS) : shortRuns;
  if (!Number.isInteger(runs) || runs < 1) throw new RangeError(`FUZZ_RUNS must be a whole number >= 1, but got: ${process.env.FUZZ_RUNS}`);
  const seedText = process.env.FUZZ_SEED;
  const seed = seedText ? Number(seedText) : LONG_RUN ? (Date.now() ^ (Math.random() * 0x100000000)) | 0 : FIXED_SEED;
  if (!Number.isInteger(seed)) throw new RangeError(`FUZZ_SEED must be an integer, but got: ${seedText}`);
  // A failure is shrunk, then printed with its seed and the path that replays it.
  return { numRuns: runs, seed };
}

/** Heap in use after a full garbage collection, in bytes. */
export function heapAfterGc(): number {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

// Private: `global.gc` without --expose-gc on the command line (vitest starts the workers).
let gc: (() => void) | undefined;
function collectGarbage(): void {
  if (gc === undefined) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}

/** `text` for a failure report: runs of one character folded (`<x×100000>`), at most `max` characters. */
export function compactText(text: string, max = 1500): string {
  const folded = text.replace(/(.)\1{49,}/gsu, (run, char: string) => `<${char}×${[...run].length}>`);
  return folded.length > max ? `${folded.slice(0, max)}…<${folded.length - max} more>` : folded;
}

/** 1 MiB, for memory bounds. */
export const MIB = 1024 * 1024;
