/**
 * What tests assert on: requests arrived, at once, and what they carried. Faulted and failed ones
 * count too: a test proving "one upstream call" must also see the calls that went wrong.
 */

/** The path of the token endpoint; its requests are kept apart from API call totals. */
export const TOKEN_PATH = '/oauth/token';

/** One received request, in arrival order. */
export interface CallLogEntry {
  /** Path without the query string. */
  path: string;
  /** URL query parameters (the last value wins when a name repeats); never the form body. */
  query: Record<string, string>;
  /** The `Authorization` header as received, if any. */
  authorization?: string;
  /** The W3C `traceparent` header as received, if any (the gateway's trace context). */
  traceparent?: string;
  /** Arrival time, ms since the epoch (the mock's clock). */
  at: number;
}

/** Request statistics of one mock upstream. */
export interface CallCounters {
  /** Record an arriving request; the returned function marks it finished (idempotent). */
  start(entry: CallLogEntry): () => void;
  calls(path?: string): number;
  maxInFlight(path?: string): number;
  inFlight(path?: string): number;
  tokenTimeoutSent(): void;
  tokenTimeoutsSent(): number;
  callLog(): CallLogEntry[];
  reset(): void;
}

// Private: the counters' mutable state; `inFlight` survives a reset, the rest is history.
interface CounterState {
  calls: Map<string, number>;
  maxInFlight: Map<string, number>;
  inFlight: Map<string, number>;
  apiCalls: number;
  apiInFlight: number;
  apiMaxInFlight: number;
  timeouts: number;
  log: CallLogEntry[];
}

/** Empty counters. Totals (no `path`) cover every path except the token endpoint. */
export function createCallCounters(): CallCounters {
  const state: CounterState = {
    calls: new Map(), maxInFlight: new Map(), inFlight: new Map(),
    apiCalls: 0, apiInFlight: 0, apiMaxInFlight: 0, timeouts: 0, log: [],
  };
  return {
    start: (entry) => startCall(state, entry),
    calls: (path) => (path === undefined ? state.apiCalls : state.calls.get(path) ?? 0),
    maxInFlight: (path) => (path === undefined ? state.apiMaxInFlight : state.maxInFlight.get(path) ?? 0),
    inFlight: (path) => (path === undefined ? state.apiInFlight : state.inFlight.get(path) ?? 0),
    tokenTimeoutSent: () => { state.timeouts += 1; },
    tokenTimeoutsSent: () => state.timeouts,
    callLog: () => state.log.map((entry) => ({ ...entry, query: { ...entry.query } })),
    reset() {
      // Requests still in flight keep counting down; only history is forgotten.
      Object.assign(state, { calls: new Map(), maxInFlight: new Map(), apiCalls: 0, apiMaxInFlight: 0, timeouts: 0, log: [] });
    },
  };
}

// Private: add `by` to a per-path count and return the new value.
function bump(map: Map<string, number>, key: string, by: number): number {
  const value = (map.get(key) ?? 0) + by;
  map.set(key, value);
  return value;
}

// Private: count an arriving request; the returned function counts it out, once.
function startCall(state: CounterState, entry: CallLogEntry): () => void {
  const { path } = entry;
  const isApi = path !== TOKEN_PATH;
  state.log.push(entry);
  bump(state.calls, path, 1);
  const current = bump(state.inFlight, path, 1);
  state.maxInFlight.set(path, Math.max(state.maxInFlight.get(path) ?? 0, current));
  if (isApi) {
    state.apiCalls += 1;
    state.apiInFlight += 1;
    state.apiMaxInFlight = Math.max(state.apiMaxInFlight, state.apiInFlight);
  }
  let finished = false;
  return () => {
    if (finished) return;
    finished = true;
    bump(state.inFlight, path, -1);
    if (isApi) state.apiInFlight -= 1;
  };
}
