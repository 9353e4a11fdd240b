/**
 * Starts the project's mock upstream on port 0 with a token manager and an upstream client
 * wired to it, for tests of the upstream layer and of anything built on `UpstreamClient`.
 *
 * @example
 * const upstream = await startUpstream({ mock: { behaviour: { errorStatus: 503 } } });
 * await upstream.client.get('/api/city/list', { page: 1 });
 * expect(upstream.mock.calls('/oauth/token')).toBe(1);
 * await upstream.close();
 */
import { Writable } from 'node:stream';
import { systemClock, type Clock } from '../../src/base/clock.js';
import { createLogger, type Logger } from '../../src/base/logger.js';
import { createMockUpstream, type MockUpstream, type MockUpstreamOptions } from '../../src/mock-upstream/index.js';
import type { TokenManager, UpstreamClient } from '../../src/upstream/contracts.js';
import { createUpstreamClient, type UpstreamClientOptions } from '../../src/upstream/http/client.js';
import { createTokenManager, type TokenManagerOptions } from '../../src/upstream/token/manager.js';

export interface StartUpstreamOptions {
  /** Options of the mock upstream. Default: the mock's defaults. */
  mock?: MockUpstreamOptions;
  /** Overrides of the token manager options (URL and credentials default to the mock's). */
  tokens?: Partial<TokenManagerOptions>;
  /** Overrides of the client options (`baseUrl` and `tokens` default to the mock's and the one above). */
  client?: Partial<UpstreamClientOptions>;
}

export interface StartedUpstream {
  mock: MockUpstream;
  tokens: TokenManager;
  client: UpstreamClient;
  /** Every line logged by the token manager and the client (debug level), as JSON text. */
  logs: string[];
  /** The logger both use, writing into `logs`. */
  logger: Logger;
  /**
   * Closes the mock first (its hung sockets end at once), then client and token manager, whose
   * `close()` waits for requests in flight.
   */
  close(): Promise<void>;
}

/**
 * Default timeout of the token manager and the client in these tests, in ms: generous, so an
 * answer on a busy machine is never taken for a hang. Tests of timeouts set their own.
 */
export const TEST_TIMEOUT_MS = 10_000;

export async function startUpstream(options: StartUpstreamOptions = {}): Promise<StartedUpstream> {
  const mock = await createMockUpstream(options.mock);
  const { logs, logger } = captureLogs();
  const tokens = createTokenManager({
    tokenUrl: mock.tokenUrl,
    clientId: mock.clientId,
    clientSecret: mock.clientSecret,
    clientAuth: 'basic',
    timeoutMs: TEST_TIMEOUT_MS,
    logger,
    clock: systemClock,
    ...options.tokens,
  });
  const client = createUpstreamClient({
    baseUrl: mock.url,
    timeoutMs: TEST_TIMEOUT_MS,
    tokens,
    logger,
    clock: systemClock,
    ...options.client,
  });
  return {
    mock,
    tokens,
    client,
    logs,
    logger,
    async close() {
      await mock.close();
      await client.close();
      await tokens.close();
    },
  };
}

/** A debug-level logger from `src/logger.ts` whose lines land in `logs`. */
export function captureLogs(): { logs: string[]; logger: Logger } {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logs, logger: createLogger('debug', sink) };
}

/** A clock the test moves by hand, in ms: both faces read `now()` (for `clock` options, or a harness's `wallClock`). */
export function manualClock(start = 1_700_000_000_000): Clock & { now: () => number; advance: (ms: number) => void } {
  let nowMs = start;
  const now = () => nowMs;
  return { now, monotonic: now, wall: now, advance: (ms) => void (nowMs += ms) };
}

/** A clock both of whose faces read `now` (for a test that keeps its time in a variable). */
export function clockReading(now: () => number): Clock {
  return { monotonic: now, wall: now };
}

/** The rejection of `promise` (fails the test if it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject, but it resolved');
}

/**
 * A mark for "at once": `passed()` turns true as soon as the event loop moves on from the
 * current turn (to a timer, network I/O or anything but promise callbacks). A promise that
 * settled while it was still false settled without the network, a timer or any wait. Tests of
 * "fails fast" count turns of the event loop instead of milliseconds, so a busy machine cannot
 * fail them, and a call that went to the network or waited for a slot still does.
 */
export function turnMark(): { passed(): boolean } {
  let passed = false;
  setImmediate(() => {
    passed = true;
  });
  return { passed: () => passed };
}

/**
 * The rejection of the promise `act` returns, which must come at once (see `turnMark`); fails
 * the test otherwise. `act` runs after the mark is set, so nothing it schedules comes first.
 */
export async function rejectionAtOnce(act: () => Promise<unknown>): Promise<unknown> {
  const mark = turnMark();
  const error = await rejectionOf(act());
  if (mark.passed()) throw new Error('expected the promise to reject at once, but it waited (for the network, a timer or a slot)');
  return error;
}
