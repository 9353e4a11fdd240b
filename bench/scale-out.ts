/**
 * The scale-out measurements: one private redis-server for the whole scenario, then for each
 * replica count (`SCALE_OUT_REPLICAS`) a flushed Redis and freshly started replicas, so every
 * count starts from the same cold caches and compares like with like. All replicas are pinned
 * to the system-under-test core, like the single gateway: more replicas add no CPU, so what the
 * figures show is the cost and the benefit of sharing, not of more hardware.
 */
import { CONNECTIONS, EXPIRY_CACHE_TTL_S, SCALE_OUT_REPLICAS } from './config.js';
import type { BenchMock } from './mock.js';
import { startGateway, stopProcess, type RunningProcess } from './processes.js';
import { startRedis } from './redis.js';
import { scaleOutLoad, type ScaleOutResult } from './scenarios/scale-out.js';

/** Every replica count's run, in `SCALE_OUT_REPLICAS` order. */
export async function measureScaleOut(mock: BenchMock): Promise<ScaleOutResult[]> {
  const redis = await startRedis();
  try {
    const results: ScaleOutResult[] = [];
    for (const replicas of SCALE_OUT_REPLICAS) {
      console.error(`bench: scale-out, ${replicas} replica(s) sharing one Redis (flushed), ${CONNECTIONS / replicas} connections each`);
      await redis.flush();
      results.push(await withReplicas(replicas, mock, redis.url, async (gateways) => {
        const urls = gateways.map((gw) => `${gw.url}/graphql`);
        const run = await scaleOutLoad(urls, mock, mock);
        return { replicas, ...run, redisErrors: await redisErrors(gateways) };
      }));
    }
    return results;
  } finally {
    await redis.close();
  }
}

// Private: start `count` replicas at once against `redisUrl`, use them, always stop them all.
async function withReplicas<T>(count: number, mock: BenchMock, redisUrl: string, use: (gateways: RunningProcess[]) => Promise<T>): Promise<T> {
  // Equal connections per replica (autocannon assigns them round-robin): the load is even.
  if (CONNECTIONS % count !== 0) throw new Error(`CONNECTIONS (${CONNECTIONS}) must be a multiple of the replica count (${count})`);
  const ttl = String(EXPIRY_CACHE_TTL_S);
  const env = { REDIS_URL: redisUrl, CACHE_TTL_SITES_S: ttl, CACHE_TTL_PRODUCTS_S: ttl, CACHE_TTL_CITIES_S: ttl };
  const started = await Promise.allSettled(Array.from({ length: count }, () => startGateway(mock, env)));
  const gateways = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  try {
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    await Promise.all(gateways.map(expectRedisUp));
    return await use(gateways);
  } finally {
    await Promise.all(gateways.map((gw) => stopProcess(gw.child)));
  }
}

// Private: a replica that is not using Redis would fetch and hold its own token, and the
// figures would not be about sharing: fail rather than measure that.
async function expectRedisUp(gateway: RunningProcess): Promise<void> {
  const readiness = (await (await fetch(`${gateway.url}/readyz`)).json()) as { redis?: string };
  if (readiness.redis !== 'up') throw new Error(`replica ${gateway.url}: /readyz says redis is ${readiness.redis ?? 'not configured'}`);
}

// Private: `gateway_redis_errors_total` summed over every operation and replica.
async function redisErrors(gateways: RunningProcess[]): Promise<number> {
  const counts = await Promise.all(gateways.map(async (gw) => {
    const text = await (await fetch(`${gw.url}/metrics`)).text();
    return text.split('\n')
      .filter((line) => line.startsWith('gateway_redis_errors_total'))
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  }));
  return counts.reduce((a, b) => a + b, 0);
}
