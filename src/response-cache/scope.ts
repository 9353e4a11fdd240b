/**
 * What decides a stored answer besides its response-cache key, for the answers the replicas
 * share: two replicas may serve each other's answers only when they would have made the same
 * ones. During a rolling deploy, or while a changed setting rolls out, a fleet runs two of each,
 * and an answer of the other kind would be served without any check of this replica's running:
 *
 * - the schema (`schema.graphql`): fields, types and defaults shape every answer;
 * - the release (package.json's version): the same schema may be resolved differently;
 * - the settings of the checks that run after the response cache, so that a stored answer
 *   skips them (use-response-cache.ts): `MAX_PAGE_SIZE`, `MAX_ITEMS_PER_OPERATION`,
 *   `MAX_UPSTREAM_CALLS_PER_OPERATION`; and `SITE_TIME_ZONE`, which `isOpen(at:)` answers in;
 * - the cursors' key (graph/arguments/cursors.ts), by its fingerprint: while a changed upstream
 *   secret rolls out, an answer's cursors must be ones the replica serving it accepts.
 *
 * Everything checked before the response cache (API keys, query limits, persisted operations,
 * introspection) runs on the replica that serves the answer, whatever made it.
 */
import { readFileSync } from 'node:fs';

/** The settings that change answers stored by the response cache. */
export interface AnswerSettings {
  maxPageSize: number;
  maxItemsPerOperation: number;
  maxUpstreamCallsPerOperation: number;
  siteTimeZone: string;
  /** The fingerprint of the key that signs the connections' cursors (`Cursors.id`). */
  cursorKey: string;
}

// This file is src/response-cache/scope.ts, or dist/response-cache/scope.js.
const RELEASE = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The scope of the answers this replica makes: the same text on every replica that makes the same answers. */
export function answerScope(typeDefs: string, settings: AnswerSettings): string {
  const { maxPageSize, maxItemsPerOperation, maxUpstreamCallsPerOperation, siteTimeZone, cursorKey } = settings;
  return JSON.stringify([RELEASE, typeDefs, maxPageSize, maxItemsPerOperation, maxUpstreamCallsPerOperation, siteTimeZone, cursorKey]);
}
