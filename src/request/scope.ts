/**
 * Each execution's scope (the plugin that ends it: plugins/serving/use-request-scope.ts): one
 * signal that aborts when the deadline (`REQUEST_TIMEOUT_MS`) passes or the client disconnects,
 * and the stale data served to it. A subscription's events each get a new one (graph/context.ts),
 * so it is the execution's, not the request's (request/request.ts), which it tells itself when the
 * answer is true only when made: nothing between them has to pass it on. Loads waiting on the signal stop at once, so the response carries what has resolved
 * plus coded errors; upstream calls nobody else waits for are cancelled (cache/in-flight.ts).
 * Stale data served because a refresh failed is listed in `extensions.stale`; answers that used
 * the catalog index say how old its data was in `extensions.dataAge` (whole seconds, the oldest).
 */
import { systemClock, type Clock } from '../base/clock.js';
import { setMaxListeners } from 'node:events';
import type { GraphQLError } from 'graphql';
import type { LoadScope, StaleServe } from '../cache/cache.js';
import { coded } from '../base/graph-errors.js';
import type { GatewayRequest } from './request.js';

export interface RequestScope extends LoadScope {
  signal: AbortSignal;
  /** Stale data served to this request, one entry per key. */
  readonly stale: StaleServe[];
  /** Age of the oldest catalog-index data served to this request, in whole seconds, if any. */
  readonly dataAge: number | undefined;
  /** Time left before the deadline, in ms (negative once it passed). */
  timeLeftMs(): number;
  /** Marks the answer as depending on the time it is made (`isOpen` without `at`): not to be replayed. */
  readsTheTime(): void;
  /** Whether `readsTheTime` was called. */
  readonly timeDependent: boolean;
  /** Stops the deadline timer; called when execution is done. */
  dispose(): void;
}

export interface ScopeOptions {
  /** Told when the answer reads the time or states its data's age. */
  request?: Pick<GatewayRequest, 'unrepeatable'>;
  /** Where the deadline counts from, on `clock`'s monotonic face. Default: now. */
  from?: number;
  /** Default `systemClock`; the deadline's timer is a real one either way. */
  clock?: Clock;
}

/**
 * The scope of an execution for `request` (told when its answer reads the time or states its
 * data's age: not to be replayed), whose deadline is `timeoutMs` after `from`: the request's
 * arrival (`startedAt`) for its own operations, so that a batch shares one deadline; now, by
 * default, for a subscription's next event. Its signal, the deadline timer and the listener on the
 * client's signal are made when a load first waits on them: a request served from cached data
 * never does, and an AbortController, a timer and an event listener per request were a tenth of
 * the executed path's CPU (`node --cpu-prof`).
 */
export function createRequestScope(
  clientSignal: () => AbortSignal | undefined, timeoutMs: number, options: ScopeOptions = {},
): RequestScope {
  const { request, clock = systemClock } = options;
  const deadline = (options.from ?? clock.monotonic()) + timeoutMs;
  let controller: AbortController | undefined;
  let timer: NodeJS.Timeout | undefined;
  let client: AbortSignal | undefined;
  const clientGone = () => controller?.abort(new Error('the client disconnected'));
  const stale = new Map<string, StaleServe>();
  let dataAge: number | undefined;
  let timeDependent = false;
  let disposed = false;
  return {
    get signal() {
      if (controller !== undefined) return controller.signal;
      controller = new AbortController();
      // Every load the request waits for listens on this one signal: many listeners are expected.
      setMaxListeners(0, controller.signal);
      const left = deadline - clock.monotonic();
      if (left <= 0) controller.abort(requestTimeout(timeoutMs));
      else if (!disposed) {
        const aborting = controller;
        timer = setTimeout(() => aborting.abort(requestTimeout(timeoutMs)), left);
        timer.unref();
      }
      client = clientSignal();
      if (client?.aborted) clientGone();
      else if (!disposed) client?.addEventListener('abort', clientGone, { once: true });
      return controller.signal;
    },
    get stale() {
      return [...stale.values()];
    },
    get dataAge() {
      return dataAge;
    },
    onStale: (serve) => void stale.set(serve.key, serve),
    onDataAge(ageSeconds) {
      dataAge = Math.max(dataAge ?? 0, ageSeconds);
      request?.unrepeatable();
    },
    timeLeftMs: () => deadline - clock.monotonic(),
    readsTheTime() {
      timeDependent = true;
      request?.unrepeatable();
    },
    get timeDependent() {
      return timeDependent;
    },
    dispose() {
      disposed = true;
      clearTimeout(timer);
      client?.removeEventListener('abort', clientGone);
    },
  };
}

// Private: inside an answer (status 200), not the registry's 408 for a request not received in time.
function requestTimeout(timeoutMs: number): GraphQLError {
  return coded('REQUEST_TIMEOUT', `The request did not complete within ${timeoutMs} ms`, { status: 200 });
}
