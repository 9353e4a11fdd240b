/**
 * The `operation` label of the request metrics. Operation names come from clients, and every
 * label value is a time series kept until it is removed, so the names labelled are bounded, and
 * chosen so that clients cannot crowd out the real ones (as the first 100 names seen for the life
 * of the process could):
 *
 * - Only names of operations that ran compete for a label: their documents parsed and validated
 *   against the schema (with `PERSISTED_OPERATIONS_FILE`, only listed operations run at all). A
 *   request that ran nothing (a parse or validation error) keeps the name it sent only if that
 *   name holds a label already, else it counts as `other`.
 * - At most `maxLabels` names hold a label: while there is room, a name gets one at once; then a
 *   name takes the place of the least used labelled name once it has been used more than twice as
 *   often over the recent window (the margin stops two names of equal use swapping back and
 *   forth). The loser's series are removed (`onDropped`); from then on it counts as `other`.
 * - Use is counted over a sliding window of `windowMs`: the current window's count plus the
 *   previous one's, weighted by how much of it still overlaps. A name unused for two windows
 *   scores 0, so any name in use takes its place.
 * - Names counted are bounded too (`maxTracked`, least used out), so a flood of one-off names
 *   costs bounded memory and cannot push out a name used repeatedly.
 *
 * `anonymous`, `unknown` and `other` are always labels of their own and take no place.
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
  /**
   * The label for a request's operation `name`. `ran`: its operation was executed (so it
   * validated), which makes the name compete for a label.
   */
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
