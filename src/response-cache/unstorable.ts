/**
 * Documents whose answers the response cache keeps declining to store: the catalog index's
 * (they state their data's age, `sitesNear` for one) and those made of the time now. Making their
 * key costs two hashes and a canonical print of the variables per request, for a lookup that
 * cannot hit.
 *
 * - Only a whole answer teaches a document (`worthOffering`): one whose own data makes it
 *   unstorable. An answer with errors (a bad variable) or stale data (an upstream fault) is the
 *   request's failure, not the document's: it is never offered, so that no client's failures
 *   turn the cache off for the others asking the same document.
 * - After `STREAK` declined answers in a row, a document is no longer keyed, but for one request
 *   in `REPROBE_EVERY`, which puts it back on probation: keyed from then on, until one more
 *   declined answer. So a re-probe that hits (an answer stored with other variables) makes the
 *   document keyed again, and one stored answer clears what it learnt.
 *
 * Skipping a key never serves anything wrong: the request is executed, as a miss would be.
 * Learnt per document object, which yoga's parser cache hands out one of per query text (per
 * gateway), so that every door asks the same rule (`keyedNow`, for the lean path's requests seen
 * before); a document forgets it when it leaves that cache.
 */
import type { DocumentNode } from 'graphql';
import type { GatewayRequest, ResultErrors } from '../request/request.js';

/** Declined answers in a row before a document stops being keyed. */
export const STREAK = 8;
/** Of a document no longer keyed, one request in this many is keyed again, to learn whether that changed. */
export const REPROBE_EVERY = 64;

/** What the response cache learns of each document's answers. */
export interface UnstorableDocuments {
  /** Whether a request running `document` should be keyed (looked up, and its answer offered); counts the re-probe. */
  worthKeying(document: DocumentNode): boolean;
  /** A whole answer to `document` was offered for storing, and was stored (true) or declined (false). */
  offered(document: DocumentNode, stored: boolean): void;
}

/** What is learnt of one document, shared by whoever holds it (the lean path's requests seen before). */
export interface Learnt {
  /** Declined answers in a row. */
  readonly declined: number;
  /** Requests not keyed since the last re-probe. */
  readonly skipped: number;
}

// Private: per document, what is learnt of it; reset in place, so that every holder sees it.
const learnt = new WeakMap<DocumentNode, { declined: number; skipped: number }>();

/** The rule, as the response cache's store asks it. */
export function createUnstorableDocuments(): UnstorableDocuments {
  return {
    worthKeying(document) {
      const state = learnt.get(document);
      if (state === undefined || state.declined < STREAK) return true;
      state.skipped += 1;
      if (state.skipped < REPROBE_EVERY) return false;
      state.skipped = 0;
      state.declined = STREAK - 1;
      return true;
    },
    offered(document, stored) {
      const state = stateOf(document);
      state.declined = stored ? 0 : state.declined + 1;
      state.skipped = 0;
    },
  };
}

/** What is learnt of `document`, kept by a door that will not hold the document itself. */
export function learntOf(document: DocumentNode): Learnt {
  return stateOf(document);
}

// Private: the state of `document`, made when first asked.
function stateOf(document: DocumentNode): { declined: number; skipped: number } {
  let state = learnt.get(document);
  if (state === undefined) learnt.set(document, (state = { declined: 0, skipped: 0 }));
  return state;
}

/**
 * Whether a document is keyed now, without counting a request: a door that found a request's key
 * made before asks this first, and a document past its streak goes the way of one never seen.
 */
export function keyedNow(state: Learnt): boolean {
  return state.declined < STREAK;
}

/**
 * Whether an answer (`result`, when the door has it) is offered to the store at all: a whole one
 * (one operation, no error, nothing stale) sent with status 200. Any other is never stored, and
 * says nothing of its document.
 */
export function worthOffering(request: GatewayRequest, status: number, result?: ResultErrors): boolean {
  return status === 200 && request.whole(result);
}
