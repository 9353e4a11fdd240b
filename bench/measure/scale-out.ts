/**
 * The scale-out measurements (`../scenarios/scale-out.ts`): one private redis-server for the whole
 * scenario; for each replica count (`SCALE_OUT_REPLICAS`), two runs, each on freshly started
 * replicas and a flushed Redis, so that every count starts from the same cold caches and no
 * token. All replicas are pinned to the system-under-test core, like the single gateway: more
 * replicas add no CPU, so the figures show what sharing costs and saves, not more hardware.
 */
import { CONNECTIONS, EXPIRY_CACHE_TTL_S, SCALE_OUT_REPLICAS, SCALE_OUT_SITES_TTL_S } from '../config.js';
import { stopProcess, type RunningProcess } from '../processes/child.js';
import { startGateway } from '../processes/gateway.js';
import { clock } from '../processes/machine.js';
import type { BenchMock } from '../processes/mock.js';
import { startRedis, type BenchRedis } from '../processes/redis.js';
import { expiryLoad, sharedCacheLoad, type ReplicaHealth, type ScaleOutResult } from '../scenarios/scale-out.js';

/** Every replica count's runs, in `SCALE_OUT_REPLICAS` order. */
export async function measureScaleOut(mock: BenchMock): Promise<ScaleOutResult[]> {
  const redis = await startRedis();
  try {
    const results: ScaleOutResult[] = [];
    for (const replicas of SCALE_OUT_REPLICAS) {
      // Equal connections per replica (autocannon assigns them round-robin): the load is even.
      if (CONNECTIONS % replicas !== 0) throw new Error(`CONNECTIONS (${CONNECTIONS}) must be a multiple of the replica count (${replicas})`);
      step(`${replicas} replica(s), ${CONNECTIONS / replicas} connections each: shared cache, sites TTL ${SCALE_OUT_SITES_TTL_S} s`);
      const longTtl = { CACHE_TTL_SITES_S: String(SCALE_OUT_SITES_TTL_S) };
      const sharedCache = await onFreshReplicas(replicas, redis, mock, longTtl, (urls) => sharedCacheLoad(urls, mock, mock));
      step(`${replicas} replica(s): token expiry under load, ${EXPIRY_CACHE_TTL_S} s cache TTLs`);
      const ttl = String(EXPIRY_CACHE_TTL_S);
      const shortTtls = { CACHE_TTL_SITES_S: ttl, CACHE_TTL_PRODUCTS_S: ttl, CACHE_TTL_CITIES_S: ttl };
      const expiry = await onFreshReplicas(replicas, redis, mock, shortTtls, (urls) => expiryLoad(urls, mock, mock));
      results.push({ replicas, sharedCache, expiry });
    }
    return results;
  } finally {
    await redis.close();
  }
}

// Private: flush Redis, start `count` replicas on it, run `use` on their GraphQL URLs, add what
// their metrics say of Redis, and always stop them all.
async function onFreshReplicas<T>(count: number, redis: BenchRedis, mock: BenchMock, env: Record<string, string>,
  use: (graphqlUrls: string[]) => Promise<T>): Promise<T & ReplicaHealth> {
  await redis.flush();
  const started = await Promise.allSettled(Array.from({ length: count }, () => startGateway(mock, { ...env, REDIS_URL: redis.url })));
  const gateways = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  try {
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    await Promise.all(gateways.map(expectRedisUp));
    const result = await use(gateways.map((gw) => `${gw.url}/graphql`));
    const byOperation = await redisErrors(gateways);
    const redisErrorCount = Object.values(byOperation).reduce((a, b) => a + b, 0);
    return { ...result, redisErrors: redisErrorCount, redisErrorsByOperation: byOperation };
  } finally {
    await Promise.all(gateways.map((gw) => stopProcess(gw.child)));
  }
}

// Private: a replica not using Redis would fetch alone and hold its own token, and the figures
// would not be about sharing: wait for it to reach Redis (readiness does not: a replica serves
// without Redis), and fail rather than measure without it.
async function expectRedisUp(gateway: RunningProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const readiness = (await (await fetch(`${gateway.url}/readyz`)).json()) as { redis?: string };
    if (readiness.redis === 'up') return;
    if (Date.now() > deadline) throw new Error(`replica ${gateway.url}: /readyz says redis is ${readiness.redis ?? 'not configured'}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// Private: `gateway_redis_errors_total` by operation, summed over the replicas.
async function redisErrors(gateways: RunningProcess[]): Promise<Record<string, number>> {
  const byOperation: Record<string, number> = {};
  for (const gw of gateways) {
    const text = await (await fetch(`${gw.url}/metrics`)).text();
    for (const line of text.split('\n')) {
      const match = /^gateway_redis_errors_total\{operation="(\w+)"\} (\d+)/.exec(line);
      if (match) byOperation[match[1]!] = (byOperation[match[1]!] ?? 0) + Number(match[2]);
    }
  }
  return byOperation;
}

// Private: progress on stderr, as all.ts does.
function step(what: string): void {
  console.error(`bench: ${clock()} scale-out, ${what}`);
}
