/** Where replicas share the upstream token (redis-store.ts); never a condition of getting one. */

/** A token and its two deadlines, in ms since the epoch (the wall clock replicas share). */
export interface StoredToken {
  value: string;
  /** From then on it is replaced in the background; `undefined`: never. */
  usedUpAt: number | undefined;
  /** From then on the upstream refuses it; `undefined`: unknown. */
  expiresAt: number | undefined;
}

/** A stored token is worth taking unless used up or `rejected`. No method rejects for the store's own failure. */
export interface TokenStore {
  /** The stored token, if worth taking. */
  current(rejected: string | undefined): Promise<StoredToken | undefined>;
  /** A token for every replica: the stored one, or `request`'s under the store's lock, or another holder's. */
  refresh(request: () => Promise<StoredToken>, rejected: string | undefined): Promise<StoredToken>;
  /** Removes `token` if it is still the stored one, without waiting. */
  invalidate(token: string): void;
}
