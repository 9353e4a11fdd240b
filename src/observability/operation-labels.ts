/**
 * The `operation` label of the request metrics. Names come from clients and each label value is a
 * series kept until removed, so at most `maxLabels` names hold one, chosen so clients cannot crowd
 * out the real ones: only operations that ran (parsed and validated) compete, and when full a name
 * takes the place of the least used labelled one once used more than twice as often over a
 * sliding window of `windowMs` (the margin stops swapping). Names counted are bounded too
 * (`maxTracked`). `anonymous`, `unknown` and `other` are labels of their own and take no place.
 */
import type { Clock } from '../base/clock.js';

/** Labels that are never ranked and never dropped. */
const RESERVED = new Set(['anonymous', 'unknown', 'other']);

/** How much more a name must be used than the least used labelled one to take its place. */
const TAKEOVER_MARGIN = 2;

export interface OperationLabelOptions {
  /** Names labelled at most, besides the reserved ones. Default 100. */
  maxLabels?: number;
  /** Length of the window use is counted over, in ms. Default 600 000 (10 minutes). */
  windowMs?: number;
  /** Names whose use is counted at most (labelled ones included). Default 1000. */
  maxTracked?: number;
  /** The clock of the window (its monotonic face). */
  clock: Clock;
  /** Called with a name that loses its label, so that its series can be removed. */
  onDropped?: (name: string) => void;
}

export interface OperationLabels {
  /** The label for a request's operation `name`; `ran`: it executed (so validated): the name competes. */
  label(name: string, ran: boolean): string;
  /** The names holding a label now (reserved ones not included). */
  labelled(): string[];
}

interface Use {
  /** Index of the window `current` counts. */
  window: number;
  current: number;
  previous: number;
}

export function createOperationLabels(options: OperationLabelOptions): OperationLabels {
  const maxLabels = options.maxLabels ?? 100;
  const windowMs = options.windowMs ?? 600_000;
  const maxTracked = Math.max(options.maxTracked ?? 1000, maxLabels + 1);
  const { clock } = options;
  const onDropped = options.onDropped ?? (() => {});
  const uses = new Map<string, Use>();
  const labelled = new Set<string>();

  // Private: `use`'s estimated count over the last `windowMs`, as of `at`.
  const score = (use: Use, at: number): number => {
    const window = Math.floor(at / windowMs);
    const overlap = 1 - (at % windowMs) / windowMs;
    if (use.window === window) return use.current + use.previous * overlap;
    if (use.window === window - 1) return use.current * overlap;
    return 0;
  };

  // Private: the name of `names` used least, as of `at`.
  const leastUsed = (names: Iterable<string>, at: number): { name: string; score: number } | undefined => {
    let least: { name: string; score: number } | undefined;
    for (const name of names) {
      const value = score(uses.get(name)!, at);
      if (least === undefined || value < least.score) least = { name, score: value };
    }
    return least;
  };

  const count = (name: string, at: number): number => {
    const window = Math.floor(at / windowMs);
    let use = uses.get(name);
    if (use === undefined) {
      if (uses.size >= maxTracked) {
        const unlabelled = [...uses.keys()].filter((tracked) => !labelled.has(tracked));
        uses.delete(leastUsed(unlabelled, at)!.name);
      }
      use = { window, current: 0, previous: 0 };
      uses.set(name, use);
    } else if (use.window !== window) {
      use.previous = use.window === window - 1 ? use.current : 0;
      use.current = 0;
      use.window = window;
    }
    use.current += 1;
    return score(use, at);
  };

  return {
    label(name, ran) {
      if (RESERVED.has(name)) return name;
      if (!ran) return labelled.has(name) ? name : 'other';
      const at = clock.monotonic();
      const used = count(name, at);
      if (labelled.has(name)) return name;
      if (labelled.size >= maxLabels) {
        const least = leastUsed(labelled, at)!;
        if (used <= least.score * TAKEOVER_MARGIN) return 'other';
        labelled.delete(least.name);
        onDropped(least.name);
      }
      labelled.add(name);
      return name;
    },
    labelled: () => [...labelled],
  };
}
