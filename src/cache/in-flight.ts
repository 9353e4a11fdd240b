/**
 * Loads shared by concurrent callers of one key, reference-counted: a caller whose signal aborts
 * stops waiting, and the load is aborted when the last one leaves (a background load never is).
 */

import { setMaxListeners } from 'node:events';

interface Flight {
  promise: Promise<unknown>;
  controller: AbortController;
  waiters: number;
  background: boolean;
}

export interface InFlight {
  /** Joins the load of `key`, starting it with `load` if none runs; `signal` lets this caller leave. */
  join<T>(key: string, load: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Starts `load` for `key` unless one runs, and waits for nothing; its failure goes to `onError`. */
  startInBackground(key: string, load: (signal: AbortSignal) => Promise<unknown>, onError: (error: unknown) => void): void;
  /** Whether a load of `key` runs now. */
  has(key: string): boolean;
  /** Loads running now. */
  readonly size: number;
}

export function createInFlight(): InFlight {
  const flights = new Map<string, Flight>();

  function start(key: string, load: (signal: AbortSignal) => Promise<unknown>, background: boolean): Flight {
    const controller = new AbortController();
    // A walk's pages, retries and queued attempts all listen on one load's signal.
    setMaxListeners(0, controller.signal);
    const flight: Flight = { promise: Promise.resolve(), controller, waiters: 0, background };
    flight.promise = (async () => {
      try {
        return await load(controller.signal);
      } finally {
        if (flights.get(key) === flight) flights.delete(key);
      }
    })();
    flights.set(key, flight);
    return flight;
  }

  return {
    join<T>(key: string, load: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> {
      if (signal?.aborted) return Promise.reject(signal.reason);
      const flight = flights.get(key) ?? start(key, load, false);
      return wait(flight, signal) as Promise<T>;
    },
    startInBackground(key, load, onError) {
      if (flights.has(key)) return;
      start(key, load, true).promise.catch(onError);
    },
    has: (key) => flights.has(key),
    get size() {
      return flights.size;
    },
  };
}

// Private: one caller waiting on a flight; leaves (and maybe aborts the flight) on its signal.
function wait(flight: Flight, signal: AbortSignal | undefined): Promise<unknown> {
  flight.waiters += 1;
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = () => {
      done = true;
      flight.waiters -= 1;
      signal?.removeEventListener('abort', leave);
    };
    const leave = () => {
      if (done) return;
      finish();
      if (flight.waiters === 0 && !flight.background) flight.controller.abort(signal!.reason);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', leave, { once: true });
    flight.promise.then(
      (value) => {
        if (done) return;
        finish();
        resolve(value);
      },
      (error: unknown) => {
        if (done) return;
        finish();
        reject(error);
      },
    );
  });
}
