/**
 * The decoding budget (`MAX_DECODING_BYTES`): what all compressed request bodies being decoded
 * hold at once, their decoded bytes plus each decoder's own state. A body that would pass it is
 * refused, unless it alone holds it all: one body is always decoded, so a budget below the body
 * limit cannot refuse a large body for good.
 */

/** A decoder's own state, counted when it starts (its buffers and a gzip or deflate window). */
export const DECODER_BYTES = 65_536;

export interface DecodingBudget {
  /** Takes `bytes` more for a body holding `mine` already; false, taking nothing, past the budget while others hold part of it. */
  take(bytes: number, mine: number): boolean;
  /** Gives back `bytes` taken (a body decoded, refused or gone). */
  give(bytes: number): void;
  held(): number;
  readonly decoderBytes: number;
}

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
