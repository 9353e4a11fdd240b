/**
 * A value rebuilt from the upstream when queries find it old, never on a timer: an idle gateway
 * makes no upstream calls. One build runs at a time; its result is swapped in whole.
 *
 * With `refreshMs` the refresh interval and `age` the time since the value's data was loaded:
 * - `age <= refreshMs`: served as it is;
 * - older, within the stale window (`refreshMs` past it, or `staleIfErrorMs` if longer): served
 *   at once while one background build refreshes it, so a refresh never holds a query up and,
 *   with queries coming, no answer's data is older than the interval plus one refresh;
 * - older still, or nothing built yet (a cold start, or a gateway idle that long): the query
 *   waits for the build, and gets its error if it fails.
 * A value served while its latest build failed is marked stale.
 */
import type { Clock } from '../base/clock.js';
import { createInFlight } from '../cache/in-flight.js';
import { UpstreamError } from '../upstream/errors.js';

export interface RefreshingOptions<T> {
  /** Refresh interval, in ms. */
  refreshMs: number;
  /** How long past `refreshMs` the last good value is still served (when builds fail, or at once while one runs), in ms. */
  staleIfErrorMs: number;
  /** Ages and build times are read on its monotonic face. */
  clock: Clock;
  /**
   * Builds the value; `ageMs` says how old its data already is (another replica may have loaded
   * it); `failed`: the data could not be refreshed and this is the last good data instead.
   */
  build(): Promise<{ value: T; ageMs: number; failed?: boolean }>;
  /** Told of each failed build (a query may not be waiting for it). */
  onError(error: unknown): void;
  /** Told of each build's end (metrics). */
  onBuilt?(outcome: 'ok' | 'error', durationMs: number): void;
  /** Runs each build (a walk of the upstream) in a trace span of its own. Default: no tracing. */
  traced?<R>(build: () => Promise<R>): Promise<R>;
}

/** A value as served to one query. */
export interface Served<T> {
  value: T;
  /** Time since its data was loaded, in ms. */
  ageMs: number;
  /** Its latest refresh failed. */
  stale: boolean;
}

export interface Refreshing<T> {
  /**
   * The value for a query; `signal` lets the query stop waiting for a build. It is asked for only
   * when the query has to wait: a request scope makes its signal on first use.
   */
  read(signal?: () => AbortSignal | undefined): Promise<Served<T>>;
  /** Starts a build unless one runs or the value is fresh (warming at start); never rejects. */
  warm(): void;
  /** Age of the value held now, in ms; `undefined` before the first build. */
  ageMs(): number | undefined;
}

/** After a failed build, the next background one waits this long (a failing upstream is not hammered), in ms. */
const RETRY_PAUSE_MS = 1000;

export function createRefreshing<T>(options: RefreshingOptions<T>): Refreshing<T> {
  const { refreshMs, clock } = options;
  const staleWindowMs = Math.max(refreshMs, options.staleIfErrorMs);
  const builds = createInFlight();
  let current: { value: T; loadedAt: number } | undefined;
  let failedAt: number | undefined;

  const walk = async () => {
    const started = clock.monotonic();
    try {
      const { value, ageMs, failed } = await options.build();
      const loadedAt = clock.monotonic() - ageMs;
      // The last good data, in place of a failed refresh, replaces nothing held here.
      if (current === undefined || (failed !== true && loadedAt > current.loadedAt)) current = { value, loadedAt };
      failedAt = failed === true ? clock.monotonic() : undefined;
      options.onBuilt?.(failed === true ? 'error' : 'ok', clock.monotonic() - started);
    } catch (error) {
      failedAt = clock.monotonic();
      options.onBuilt?.('error', clock.monotonic() - started);
      throw error;
    }
  };
  const { traced } = options;
  const build = traced === undefined ? walk : () => traced(walk);
  // Builds are never aborted by a query leaving: the next query wants the result too.
  const start = () => builds.startInBackground('build', build, options.onError);
  const served = (entry: { value: T; loadedAt: number }): Served<T> => ({
    value: entry.value,
    ageMs: clock.monotonic() - entry.loadedAt,
    stale: failedAt !== undefined,
  });

  return {
    async read(signal) {
      const age = current === undefined ? Infinity : clock.monotonic() - current.loadedAt;
      if (current !== undefined && age <= refreshMs) return served(current);
      if (current !== undefined && age <= refreshMs + staleWindowMs) {
        if (failedAt === undefined || clock.monotonic() - failedAt >= RETRY_PAUSE_MS) start();
        return served(current);
      }
      start();
      await builds.join('build', build, signal?.());
      // A failed refresh keeps what is held: past the window, that is no answer.
      if (clock.monotonic() - current!.loadedAt > refreshMs + staleWindowMs) {
        throw new UpstreamError('UPSTREAM_UNAVAILABLE', 'the catalog index could not be refreshed');
      }
      return served(current!);
    },
    warm() {
      if (current === undefined || clock.monotonic() - current.loadedAt > refreshMs) start();
    },
    ageMs: () => (current === undefined ? undefined : clock.monotonic() - current.loadedAt),
  };
}
