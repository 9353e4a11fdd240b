/**
 * Two gateway replicas sharing one Redis (a redis-server of the test's own) in front of one mock
 * upstream, as operators run them behind a load balancer.
 */
import { createMockUpstream, type MockUpstream, type MockUpstreamOptions } from '../../src/mock-upstream/index.js';
import { startGateway, type GraphQLResponse, type Harness } from '../helpers/gateway.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';

export interface Fleet {
  mock: MockUpstream;
  redis: TestRedis;
  a: Harness;
  b: Harness;
  /** Replica `a` for even `i`, `b` for odd: a round-robin load balancer. */
  replica(i: number): Harness;
  close(): Promise<void>;
}

export interface FleetOptions {
  mock?: MockUpstreamOptions;
  /** Gateway variables besides REDIS_URL. */
  env?: Record<string, string>;
}

export async function startFleet(options: FleetOptions = {}): Promise<Fleet> {
  const redis = await startRedis();
  const mock = await createMockUpstream(options.mock);
  // Generous timeouts: both gateways, the mock and the test share one event loop, and on a busy
  // machine a stretch of work there must not pass for a slow Redis (which would take Redis out of
  // use and break the call counts), nor a slow fill for a dead one. The test of a hanging Redis
  // sets its own short command timeout.
  const env = { REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT_MS: '2000', REDIS_FILL_WAIT_MS: '10000', ...options.env };
  const [a, b] = await Promise.all([startGateway({ sharedMock: mock, env }), startGateway({ sharedMock: mock, env })]);
  return {
    mock,
    redis,
    a,
    b,
    replica: (i) => (i % 2 === 0 ? a : b),
    async close() {
      await Promise.all([a.close(), b.close()]);
      await mock.close();
      await redis.close();
    },
  };
}

/** GETs `/readyz` of a replica: its status and body. */
export async function readiness(h: Harness): Promise<{ status: number; body: any }> {
  const response = await fetch(`${h.url}/readyz`);
  return { status: response.status, body: await response.json() };
}

/** Resolves once `check` holds, polling every 25 ms; fails after `ms`. */
export async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Whether an answer is a full success: data and no error. */
export function succeeded(answer: GraphQLResponse): boolean {
  return answer.errors === undefined && answer.data !== null && answer.data !== undefined;
}
