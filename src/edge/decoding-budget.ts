/**
 * The decoding budget (`MAX_DECODING_BYTES`): what compressed request bodies being decoded hold
 * in this process at once, counted as each body's decoded bytes so far plus what its decoder holds
 * of its own (edge/body-codings.ts: `DECODER_BYTES` when it starts, a brotli stream's ring buffer
 * once its first bytes declare it). A body that would take the count past the budget is refused
 * (edge/body.ts), unless it holds all of it already: one body is always decoded, so that a budget
 * below the body limit cannot refuse a large body for good. A few bytes of compressed data cannot
 * make the process hold much more than the budget, however many connections send them; a zstd
 * window grows with what it decodes, so the memory behind a zstd body's count is up to about twice it.
 */

/** A decoder's own state, counted when it starts: its buffers and a gzip or deflate window (about 40 KiB measured). */
export const DECODER_BYTES = 65_536;

export interface DecodingBudget {
  /**
   * Takes `bytes` more for a body holding `mine` already and answers true, or answers false,
   * taking nothing, when they would pass the budget while other bodies hold part of it.
   */
  take(bytes: number, mine: number): boolean;
  /** Gives back `bytes` taken (a body decoded, refused or gone). */
  give(bytes: number): void;
  /** The bytes taken now. */
  held(): number;
  /** What a decoder's own state counts for (`DECODER_BYTES`). */
  readonly decoderBytes: number;
}

/** A budget of `maxBytes`. */
export function createDecodingBudget(maxBytes: number): DecodingBudget {
  let held = 0;
  return {
    take(bytes, mine) {
      if (held + bytes > maxBytes && held > mine) return false;
      held += bytes;
      return true;
    },
    give(bytes) {
      held -= bytes;
    },
    held: () => held,
    decoderBytes: DECODER_BYTES,
  };
}
