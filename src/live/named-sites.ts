/**
 * Watching named sites (`stockAlerts(siteCodes:)`) as one: a round's reads are handed on once
 * every named site's has arrived. A code the upstream does not know is dropped at once, its key
 * given back and told once in one `NOT_FOUND`, so made-up codes cost one round, not one call a
 * round; with no code left, the subscription ends.
 */
import type { GraphQLError } from 'graphql';
import { coded } from '../base/graph-errors.js';
import type { SiteRecord } from '../upstream/records.js';
import type { Place } from './limits.js';
import type { SitePoller, SiteRead } from './polling.js';
import { siteKey } from './watch-loop.js';

/** Unknown codes a `NOT_FOUND` message names, at most; the rest are counted. */
const NAMED_AT_MOST = 10;

export interface NamedSitesWatch {
  /** The known sites' records of one round, in the order named. */
  take(sites: SiteRecord[]): void;
  /** One round's failed read. */
  fail(error: unknown): void;
  /** The unknown codes, told once. */
  notFound(error: GraphQLError): void;
  /** Nothing is left to watch. */
  end(): void;
}

/** Watches `codes` on `poller` for `place`; returns what stops it. */
export function watchNamedSites(poller: SitePoller, codes: readonly string[], place: Place, watch: NamedSitesWatch): () => void {
  const unwatches = new Map<string, () => void>();
  let round = new Map<string, SiteRead>();

  const arrive = (code: string, read: SiteRead) => {
    if (!unwatches.has(code)) return;
    round.set(code, read);
    if (round.size < unwatches.size) return;
    const reads = [...unwatches.keys()].map((c): [string, SiteRead] => [c, round.get(c)!]);
    round = new Map();
    const failed = reads.find((entry): entry is [string, { error: unknown }] => 'error' in entry[1]);
    if (failed) return watch.fail(failed[1].error);
    const unknown = reads.filter(([, r]) => (r as { site: SiteRecord | null }).site === null).map(([c]) => c);
    if (unknown.length > 0) {
      for (const code of unknown) {
        unwatches.get(code)?.();
        unwatches.delete(code);
      }
      place.drop(unknown.map(siteKey));
      watch.notFound(notFound(unknown));
      if (unwatches.size === 0) return watch.end();
    }
    watch.take(reads.flatMap(([, r]) => ((r as { site: SiteRecord | null }).site ?? [])));
  };

  for (const code of new Set(codes)) unwatches.set(code, poller.watchSite(code, (read) => arrive(code, read)));
  return () => {
    for (const unwatch of unwatches.values()) unwatch();
    unwatches.clear();
  };
}

// Private: the event telling which codes the upstream does not know.
function notFound(codes: readonly string[]): GraphQLError {
  const named = codes.slice(0, NAMED_AT_MOST).map((code) => JSON.stringify(code)).join(', ');
  const more = codes.length > NAMED_AT_MOST ? ` and ${codes.length - NAMED_AT_MOST} more` : '';
  const which = codes.length === 1 ? `There is no site with code ${named}` : `There are no sites with codes ${named}${more}`;
  return coded('NOT_FOUND', `${which}; no longer watched`, { status: 200 });
}
