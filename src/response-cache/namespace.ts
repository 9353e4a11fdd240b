/**
 * What decides a shared answer besides its key: replicas serve each other's answers only when they
 * would have made the same ones (schema, release, the settings of checks a hit skips, the cursor
 * key), which differ during a rolling deploy.
 */
import { readFileSync } from 'node:fs';

export interface AnswerSettings {
  maxPageSize: number;
  maxItemsPerOperation: number;
  maxUpstreamCallsPerOperation: number;
  siteTimeZone: string;
  /** The fingerprint of the key that signs the connections' cursors (`Cursors.id`). */
  cursorKey: string;
}

// Two levels up, from the sources and the build alike.
const RELEASE = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The scope of this replica's answers: the same text on every replica that makes the same answers. */
export function answerNamespace(typeDefs: string, settings: AnswerSettings): string {
  const { maxPageSize, maxItemsPerOperation, maxUpstreamCallsPerOperation, siteTimeZone, cursorKey } = settings;
  return JSON.stringify([RELEASE, typeDefs, maxPageSize, maxItemsPerOperation, maxUpstreamCallsPerOperation, siteTimeZone, cursorKey]);
}
