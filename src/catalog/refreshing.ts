/**
 * A value rebuilt when queries find it old, never on a timer (an idle gateway makes no calls); one
 * build at a time, swapped in whole. Within the stale window past `refreshMs` it is served at once
 * while a background build runs; older or never built, the query waits for the build.
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
  /** Builds the value; `ageMs`: how old its data already is; `failed`: this is the last good data. */
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
  /** The value for a query; `signal`, asked for only when the query must wait, stops the wait. */
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
