/**
 * Documents whose answers the response cache keeps declining to store: the catalog index's
 * (they state their data's age, `sitesNear` for one) and those made of the time now. Making their key costs two hashes and a canonical print of the variables per
 * request (6 % of a `sitesNear` request's CPU in a profile) for a lookup that cannot hit.
 *
 * After `STREAK` such answers in a row, a document is no longer keyed, but for one request in
 * `REPROBE_EVERY`: one stored answer puts it back for good. Skipping a key never serves anything
 * wrong: the request is executed, as a miss would be. Learnt per document object (yoga's parser
 * cache hands out one per query text), so a document forgets it when it leaves that cache.
 */
import type { DocumentNode } from 'graphql';

/** Answers in a row not storable before a document stops being keyed. */
export const STREAK = 8;
/** Of a document no longer keyed, one request in this many is keyed again, to learn whether that changed. */
export const REPROBE_EVERY = 64;

/** What the response cache learns of each document's answers. */
export interface UnstorableDocuments {
  /** Whether a request running `document` should be keyed (looked up, and its answer offered for storing). */
  worthKeying(document: DocumentNode): boolean;
  /** An answer to `document` was offered for storing, and was stored (true) or declined (false). */
  offered(document: DocumentNode, stored: boolean): void;
}

export function createUnstorableDocuments(): UnstorableDocuments {
  const learnt = new WeakMap<DocumentNode, { declined: number; skipped: number }>();
  return {
    worthKeying(document) {
      const state = learnt.get(document);
      if (state === undefined || state.declined < STREAK) return true;
      state.skipped += 1;
      if (state.skipped < REPROBE_EVERY) return false;
      state.skipped = 0;
      return true;
    },
    offered(document, stored) {
      if (stored) {
        learnt.delete(document);
        return;
      }
      const state = learnt.get(document);
      if (state === undefined) learnt.set(document, { declined: 1, skipped: 0 });
      else state.declined += 1;
    },
  };
}
