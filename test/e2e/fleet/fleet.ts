/**
 * Gateway replicas (two unless asked for more) sharing one Redis (a redis-server of the test's own, or a Sentinel or
 * Cluster the test started: `redis`) in front of one mock upstream, as operators run them behind
 * a load balancer.
 */
import { createMockUpstream, type MockUpstream, type MockUpstreamOptions } from '../../../src/mock-upstream/index.js';
import { startGateway, type GraphQLResponse, type Harness, type HarnessOptions } from '../../helpers/gateway.js';
import { startRedis, type TestRedis } from '../../helpers/redis.js';
import type { TestTopology } from '../../helpers/redis-topologies.js';

export interface Fleet<R extends TestTopology = TestRedis> {
  mock: MockUpstream;
  redis: R;
  a: Harness;
  b: Harness;
  /** Every replica: `a`, `b`, then any more asked for (`replicas`). */
  all: Harness[];
  /** Replica `i` modulo their number (`a` for even `i`, `b` for odd with two): a round-robin load balancer. */
  replica(i: number): Harness;
  close(): Promise<void>;
}

export interface FleetOptions<R extends TestTopology = TestRedis> {
  mock?: MockUpstreamOptions;
  /** The Redis to share, already started: emptied first, left running. Default: a redis-server of the fleet's own. */
  redis?: R;
  /** Gateway variables besides those naming Redis. */
  env?: Record<string, string>;
  /** How many replicas. Default 2. */
  replicas?: number;
  /** The replicas' wall clock (the token's lifetime; the rate limit's buckets in Redis). Default: theirs and Redis's. */
  wallClock?: HarnessOptions['wallClock'];
}

export async function startFleet<R extends TestTopology = TestRedis>(options: FleetOptions<R> = {}): Promise<Fleet<R>> {
  const redis = (options.redis ?? (await startRedis())) as R;
  await options.redis?.flush();
  const mock = await createMockUpstream(options.mock);
  // Generous timeouts: both gateways, the mock and the test share one event loop, and on a busy
  // machine a stretch of work there must not pass for a slow Redis (which would take Redis out of
  // use and break the call counts), nor a slow fill for a dead one. The test of a hanging Redis
  // sets its own short command timeout.
  const env = { ...redis.env, REDIS_COMMAND_TIMEOUT_MS: '2000', REDIS_FILL_WAIT_MS: '10000', ...options.env };
  const all = await Promise.all(Array.from({ length: options.replicas ?? 2 }, () => startGateway({ sharedMock: mock, env, wallClock: options.wallClock })));
  const [a, b] = all as [Harness, Harness];
  return {
    mock,
    redis,
    a,
    b,
    all,
    replica: (i) => all[i % all.length]!,
    async close() {
      await Promise.all(all.map((replica) => replica.close()));
      await mock.close();
      if (options.redis === undefined) await redis.close();
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

/** Requests kept going over the replicas while a test breaks Redis under them. */
export interface SteadyTraffic {
  /** Requests sent so far. */
  readonly sent: number;
  /** The answers that were not a full success (or the errors thrown instead). */
  readonly failures: unknown[];
  /** Stops sending; resolves once the requests in flight are answered. */
  stop(): Promise<void>;
}

/**
 * Two requests at a time, round-robin over the fleet's replicas, the `i`-th asking `request(i)`,
 * until `stop`: new keys all along keep Redis asked for something throughout.
 */
export function steadyTraffic(fleet: Fleet<TestTopology>, request: (i: number) => [string, Record<string, unknown>]): SteadyTraffic {
  let sent = 0;
  let stopped = false;
  const failures: unknown[] = [];
  const send = async (i: number) => {
    sent += 1;
    const [query, variables] = request(i);
    const answer = await fleet.replica(i).query(query, variables).catch((error: unknown) => ({ errors: [error] }));
    if (!succeeded(answer as GraphQLResponse)) failures.push(answer);
  };
  const running = (async () => {
    for (let i = 0; !stopped; i += 1) await Promise.all([send(2 * i), send(2 * i + 1)]);
  })();
  return {
    get sent() {
      return sent;
    },
    failures,
    async stop() {
      stopped = true;
      await running;
    },
  };
}
