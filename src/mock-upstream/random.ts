/**
 * A tiny seeded pseudo-random source, so `generateCatalog({ seed })` is the same catalog on every
 * machine and every run. Not for anything secret: tokens use `node:crypto`.
 */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both ends included. */
  int(min: number, max: number): number;
  /** One element of a non-empty list. */
  pick<T>(list: readonly T[]): T;
  /** True with probability `p` (0..1). */
  chance(p: number): boolean;
  /** `length` decimal digits, leading zeros allowed. */
  digits(length: number): string;
}

/** A `Random` over mulberry32: 32 bits of state, fast, and good enough for test data. */
export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick<T>(list: readonly T[]): T {
      const item = list[int(0, list.length - 1)];
      if (item === undefined) throw new RangeError('pick() needs a non-empty list, but got: []');
      return item;
    },
    chance: (p) => next() < p,
    digits(length) {
      let out = '';
      for (let i = 0; i < length; i += 1) out += String(int(0, 9));
      return out;
    },
  };
}
