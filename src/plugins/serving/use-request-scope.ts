/**
 * Each GraphQL request's scope: one signal that aborts when the request's deadline
 * (`REQUEST_TIMEOUT_MS`) passes or its client disconnects, and the record of stale data served
 * to it. Loads waiting on the signal stop at once, so the response carries what has resolved
 * plus coded errors; upstream calls nobody else waits for are cancelled (cache/in-flight.ts).
 * Stale data served because a refresh failed is listed in `extensions.stale`; answers that used
 * the catalog index say how old its data was in `extensions.dataAge` (whole seconds, the oldest).
 */
import { setMaxListeners } from 'node:events';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { LoadScope, StaleServe } from '../../cache/cache.js';
import { currentRequest } from '../../request/record.js';

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

/**
 * The scope of a request that arrived now. Its signal, the deadline timer and the listener on the
 * client's signal are made when a load first waits on them: a request served from cached data
 * never does, and an AbortController, a timer and an event listener per request were a tenth of
 * the executed path's CPU (`node --cpu-prof`). The deadline counts from now either way.
 */
export function createRequestScope(clientSignal: () => AbortSignal | undefined, timeoutMs: number): RequestScope {
  const deadline = performance.now() + timeoutMs;
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
      const left = deadline - performance.now();
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
    onDataAge: (ageSeconds) => void (dataAge = Math.max(dataAge ?? 0, ageSeconds)),
    timeLeftMs: () => deadline - performance.now(),
    readsTheTime: () => void (timeDependent = true),
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

/** Ends each execution's scope and reports stale data in the result's `extensions.stale`. */
export function useRequestScope(): Plugin<{ scope?: RequestScope }> {
  return {
    onExecute({ args }) {
      const { scope } = args.contextValue;
      return {
        onExecuteDone({ result, setResult }) {
          const record = currentRequest();
          if (Symbol.asyncIterator in result) {
            // An answer in parts (@defer, @stream) is one operation: the deadline holds until its
            // last part, which carries the notes. It is never replayed, whole or in parts.
            if (record !== undefined) record.dataExpiresAt = Number.NEGATIVE_INFINITY;
            return {
              onNext({ result: part, setResult: setPart }) {
                if (!('hasNext' in part) || part.hasNext !== false) return;
                const extensions = notesOf(scope);
                if (extensions !== undefined) setPart({ ...part, extensions: { ...part.extensions, ...extensions } });
              },
              onEnd: () => scope?.dispose(),
            };
          }
          scope?.dispose();
          // An answer made of the time now, or stating its data's age, is true when made, not
          // when replayed: its data is as good as expired for the response cache.
          if (record !== undefined && (scope?.timeDependent === true || scope?.dataAge !== undefined)) {
            record.dataExpiresAt = Number.NEGATIVE_INFINITY;
          }
          const extensions = notesOf(scope);
          if (extensions !== undefined) setResult({ ...result, extensions: { ...result.extensions, ...extensions } });
          return undefined;
        },
      };
    },
  };
}

// Private: the answer's `stale` and `dataAge` notes, if it has any.
function notesOf(scope: RequestScope | undefined): Record<string, unknown> | undefined {
  const stale = scope?.stale ?? [];
  const dataAge = scope?.dataAge;
  if (stale.length === 0 && dataAge === undefined) return undefined;
  return { ...(stale.length > 0 && { stale }), ...(dataAge !== undefined && { dataAge }) };
}

function requestTimeout(timeoutMs: number): GraphQLError {
  return new GraphQLError(`The request did not complete within ${timeoutMs} ms`, {
    extensions: { code: 'REQUEST_TIMEOUT' },
  });
}
