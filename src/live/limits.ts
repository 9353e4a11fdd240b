/**
 * The limits of live subscriptions: how many are open and how many distinct keys they watch, in
 * all and per client. A place is taken synchronously with the check, so a burst of subscribes
 * cannot all pass before any is counted, and given back once however the subscription ends; a key
 * shared by several subscriptions counts once.
 */
import type { GraphQLError } from 'graphql';
import type { ErrorCode } from '../base/errors.js';
import { coded } from '../base/graph-errors.js';
import type { LiveConfig } from '../base/config/config.js';

/** The live subscription fields. */
export type LiveField = 'siteStock' | 'productStock' | 'stockAlerts';

export const TOO_MANY_SUBSCRIPTIONS: ErrorCode = 'TOO_MANY_SUBSCRIPTIONS';
export const TOO_MANY_WATCHED_KEYS: ErrorCode = 'TOO_MANY_WATCHED_KEYS';

export type LiveLimits = Pick<LiveConfig, 'maxSubscriptions' | 'maxSubscriptionsPerClient' | 'maxWatchedKeys' | 'maxWatchedKeysPerClient'>;

/** One admitted subscription's place. */
export interface Place {
  readonly field: LiveField;
  /** Stops watching `keys` (the upstream does not know them): they count no more. */
  drop(keys: readonly string[]): void;
  /** Gives the place and its keys back; again, nothing. */
  release(): void;
}

export interface Places {
  /** Takes a place for a subscription of `client` watching `keys`; throws the refusal when a limit is reached. */
  take(field: LiveField, client: string, keys: readonly string[]): Place;
  /** Places held now. */
  open(): Iterable<Place>;
}

export function createPlaces(limits: LiveLimits): Places {
  const open = new Set<Place>();
  // Subscriptions and keys per client; the gateway's keys, with how many places hold each.
  const clients = new Map<string, { subscriptions: number; keys: Map<string, number> }>();
  const keys = new Map<string, number>();

  function check(client: string, wanted: readonly string[]): void {
    const mine = clients.get(client);
    if (open.size >= limits.maxSubscriptions) {
      throw refusal(TOO_MANY_SUBSCRIPTIONS, `Too many live subscriptions: ${limits.maxSubscriptions} are open on this gateway, its limit; end one first`);
    }
    if ((mine?.subscriptions ?? 0) >= limits.maxSubscriptionsPerClient) {
      throw refusal(TOO_MANY_SUBSCRIPTIONS, `Too many live subscriptions: this client holds ${limits.maxSubscriptionsPerClient}, the most one client may; end one first`);
    }
    const distinct = [...new Set(wanted)];
    const forClient = (mine?.keys.size ?? 0) + distinct.filter((key) => !mine?.keys.has(key)).length;
    if (forClient > limits.maxWatchedKeysPerClient) {
      throw refusal(TOO_MANY_WATCHED_KEYS, `Too many sites watched: this subscription would make this client watch ${forClient} sites (every site counts as one), more than the ${limits.maxWatchedKeysPerClient} one client may; watch fewer or end a subscription first`);
    }
    const inAll = keys.size + distinct.filter((key) => !keys.has(key)).length;
    if (inAll > limits.maxWatchedKeys) {
      throw refusal(TOO_MANY_WATCHED_KEYS, `Too many sites watched: this subscription would make this gateway watch ${inAll} sites (every site counts as one), more than its limit of ${limits.maxWatchedKeys}; try again later`);
    }
  }

  return {
    take(field, client, wanted) {
      check(client, wanted);
      let mine = clients.get(client);
      if (mine === undefined) clients.set(client, (mine = { subscriptions: 0, keys: new Map() }));
      mine.subscriptions += 1;
      const held = new Set(wanted);
      for (const key of held) {
        add(mine.keys, key, 1);
        add(keys, key, 1);
      }
      let released = false;
      const place: Place = {
        field,
        drop(dropped) {
          for (const key of dropped) {
            if (released || !held.delete(key)) continue;
            add(mine.keys, key, -1);
            add(keys, key, -1);
          }
        },
        release() {
          if (released) return;
          place.drop([...held]);
          released = true;
          open.delete(place);
          mine.subscriptions -= 1;
          if (mine.subscriptions === 0) clients.delete(client);
        },
      };
      open.add(place);
      return place;
    },
    open: () => open,
  };
}

// Private: counts `key` once more (or less) in `counts`, forgetting it at zero.
function add(counts: Map<string, number>, key: string, by: number): void {
  const count = (counts.get(key) ?? 0) + by;
  if (count > 0) counts.set(key, count);
  else counts.delete(key);
}

function refusal(code: ErrorCode, message: string): GraphQLError {
  return coded(code, message);
}
