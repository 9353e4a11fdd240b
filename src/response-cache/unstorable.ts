/**
 * Documents whose answers the cache keeps declining to store stop being keyed, sparing a key that
 * cannot hit; one request in `REPROBE_EVERY` re-probes. Only a whole answer teaches a document, so
 * one client's failures never turn the cache off for others. Skipping a key is always safe.
 */
import type { DocumentNode } from 'graphql';
import type { GatewayRequest, ResultErrors } from '../request/request.js';
import type { StoreAnswer } from '../request/stored.js';

/** Declined answers in a row before a document stops being keyed. */
export const STREAK = 8;
/** Of a document no longer keyed, one request in this many is keyed again. */
export const REPROBE_EVERY = 64;

/** What the response cache learns of each document's answers. */
export interface UnstorableDocuments {
  /** Whether a request running `document` should be keyed (looked up, and its answer offered); counts the re-probe. */
  worthKeying(document: DocumentNode): boolean;
  /** A whole answer to `document` was offered for storing, and was stored (true) or declined (false). */
  offered(document: DocumentNode, stored: boolean): void;
}

/** What is learnt of one document, shared by whoever holds it (the GraphQL road's requests seen before). */
export interface Learnt {
  readonly declined: number;
  readonly skipped: number;
}

// Private: per document, what is learnt of it; reset in place, so that every holder sees it.
const learnt = new WeakMap<DocumentNode, { declined: number; skipped: number }>();

/** The rule, as the store asks it. */
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

function stateOf(document: DocumentNode): { declined: number; skipped: number } {
  let state = learnt.get(document);
  if (state === undefined) learnt.set(document, (state = { declined: 0, skipped: 0 }));
  return state;
}

/** Whether a document is keyed now, without counting a request. */
export function keyedNow(state: Learnt): boolean {
  return state.declined < STREAK;
}

/** Whether an answer is offered to the store at all: a whole one sent with status 200. */
export function worthOffering(request: GatewayRequest, status: number, result?: ResultErrors): boolean {
  return status === 200 && request.whole(result);
}

const NO_BYTES = new Uint8Array(0);

/**
 * Offers `request`'s answer to `store` as far as it can be without its bytes: not at all when it
 * is not whole (a failure teaches its document nothing), declined when its data cannot be kept (an
 * answer in parts never can), so that it is never read back. False: its bytes are to be offered.
 */
export function offeredUnread(request: GatewayRequest, status: number, store: StoreAnswer): boolean {
  const result = request.result;
  if (!worthOffering(request, status, result)) return true;
  if (request.storable(result) !== undefined) return false;
  store(status, NO_BYTES, 'application/json', result);
  return true;
}
