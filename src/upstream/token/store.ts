/**
 * Where the token manager keeps the upstream token besides its own memory, so that replicas
 * share one token (redis-store.ts). Without a store the token manager works alone, as a
 * single process does: the store is an addition, never a condition of getting a token.
 */

/** A token and its two deadlines, in ms since the epoch (the wall clock replicas share). */
export interface StoredToken {
  value: string;
  /** From then on it is replaced proactively (still handed out meanwhile); `undefined`: never. */
  usedUpAt: number | undefined;
  /** From then on the upstream refuses it; `undefined`: unknown. */
  expiresAt: number | undefined;
}

/**
 * A token is worth taking from the store when it is not used up and is not the one the
 * upstream just refused here (`rejected`). No method rejects because of the store itself: when
 * it cannot be reached, `current` finds nothing and `refresh` runs the request here.
 */
export interface TokenStore {
  /** The stored token, if worth taking. */
  current(rejected: string | undefined): Promise<StoredToken | undefined>;
  /**
   * A new token for every replica: the stored one if worth taking; else `request` runs here,
   * under the store's refresh lock, and its token is stored; or, while another replica holds
   * the lock, the token it stores. `request`'s failure is the caller's.
   */
  refresh(request: () => Promise<StoredToken>, rejected: string | undefined): Promise<StoredToken>;
  /** Removes `token` from the store if it is still the stored one (without waiting). */
  invalidate(token: string): void;
}
