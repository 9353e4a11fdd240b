/**
 * `npm run soak`: the built gateway (dist/main.js, its own process) under a fixed-concurrency
 * mixed load for SOAK_MINUTES (default 5) while the mock upstream injects faults and token
 * expiries. Prints requests, errors by code, upstream calls, token requests, and the gateway's
 * RSS at the start, every minute, and at the end. Not part of `npm test`.
 *
 *   SOAK_MINUTES=1 SOAK_CONCURRENCY=32 npm run soak
 *   npm run soak -- live        (soak-live.ts: subscriptions opened and left, 10,000 times)
 *   npm run soak -- bodies      (soak-bodies.ts: 2,000 stalled compressed bodies, three ways)
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createMockUpstream, type MockUpstream } from '../src/mock-upstream/index.js';
import { addressOf } from '../test/helpers/process.js';

// `npm run soak -- live`: the live subscriptions' soak instead (it exits when done).
if (process.argv.includes('live')) await import('./soak-live.js');
// `npm run soak -- bodies`: compressed request bodies that never end instead (it exits when done).
if (process.argv.includes('bodies')) await import('./soak-bodies.js');

const MINUTES = Number(process.env.SOAK_MINUTES ?? 5);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 32);

const mock = await createMockUpstream({ catalog: { sites: 400, products: 300 }, latencyMs: 10, tokenLifetimeS: 120 });
const gateway = spawn(process.execPath, ['dist/main.js'], {
  env: {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.SOAK_LOG_LEVEL ?? 'info',
    UPSTREAM_BASE_URL: mock.url,
    OAUTH_TOKEN_URL: mock.tokenUrl,
    OAUTH_CLIENT_ID: mock.clientId,
    OAUTH_CLIENT_SECRET: mock.clientSecret,
    UPSTREAM_TIMEOUT_MS: '1000',
    REQUEST_TIMEOUT_MS: '3000',
    CACHE_TTL_SITES_S: '5',
    CACHE_TTL_PRODUCTS_S: '20',
    CACHE_TTL_CITIES_S: '60',
    CACHE_STALE_WHILE_REVALIDATE_S: '5',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url = await addressOf(gateway);

const errors = new Map<string, number>();
let requests = 0;
let failedRequests = 0;
let staleAnswers = 0;
const faultCounts: Record<string, number> = {};
const rssSamples: string[] = [`start ${rssMb(gateway.pid!)} MB`];

const stopFaults = scheduleFaults(mock);
const deadline = Date.now() + MINUTES * 60_000;
const sampler = setInterval(() => rssSamples.push(`${rssSamples.length} min ${rssMb(gateway.pid!)} MB`), 60_000);
await Promise.all(Array.from({ length: CONCURRENCY }, () => worker()));
clearInterval(sampler);
stopFaults();
rssSamples.push(`end ${rssMb(gateway.pid!)} MB`);

console.error(`soak: ${MINUTES} min, ${CONCURRENCY} connections, mixed queries with faults and token expiries`);
console.error(`requests            ${requests} (${(requests / (MINUTES * 60)).toFixed(0)}/s)`);
console.error(`requests with errors ${failedRequests}`);
console.error(`errors by code      ${JSON.stringify(Object.fromEntries(errors))}`);
console.error(`answers marked stale ${staleAnswers} (served from cache while a refresh failed)`);
console.error(`faults injected     ${JSON.stringify({ ...faultCounts, 'connection reset': 'every 20th call' })}`);
console.error(`upstream calls      ${mock.calls()} (max in flight ${mock.maxInFlight()})`);
console.error(`token requests      ${mock.calls('/oauth/token')}`);
console.error(`gateway RSS         ${rssSamples.join(', ')}`);

gateway.kill('SIGTERM');
await new Promise((resolve) => gateway.once('exit', resolve));
await mock.close();

async function worker(): Promise<void> {
  while (Date.now() < deadline) {
    const body = JSON.stringify(randomQuery(mock));
    try {
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const result = (await response.json()) as {
        errors?: Array<{ extensions?: { code?: string } }>;
        extensions?: { stale?: unknown[] };
      };
      count(result.errors?.map((error) => error.extensions?.code ?? 'NONE') ?? []);
      if (result.extensions?.stale) staleAnswers += 1;
    } catch (error) {
      count([`CLIENT_${(error as Error).name}`]);
    }
    requests += 1;
  }
}

function count(codes: string[]): void {
  if (codes.length > 0) failedRequests += 1;
  for (const code of codes) errors.set(code, (errors.get(code) ?? 0) + 1);
}

function randomQuery(upstream: MockUpstream): { query: string; variables?: Record<string, unknown> } {
  const { sites, products, cities } = upstream.catalog;
  const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)]!;
  const page = 1 + Math.floor(Math.random() * 8);
  const mix = [
    () => ({ query: `query($p: Int!) { sites(page: $p, pageSize: 20) { total items { code name enabled } } }`, variables: { p: page } }),
    () => ({
      query: `query($p: Int!) { sites(page: $p, pageSize: 10) { items { code city { name } points { cargoLanes { stock product { productName guidePrice } } } } } }`,
      variables: { p: page },
    }),
    () => ({ query: `query($c: String!) { site(code: $c) { name city { name } points { imei cargoLanes { stock guidePrice } } } }`, variables: { c: pick(sites).code } }),
    () => ({ query: `query($g: String!) { product(goodsCode: $g) { productName ipName guidePrice } }`, variables: { g: pick(products).goodsCode } }),
    () => ({ query: `query($p: Int!) { products(page: $p, pageSize: 30) { total items { goodsCode productName } } }`, variables: { p: page } }),
    () => ({ query: `query($c: String!) { city(code: $c) { cityId name } }`, variables: { c: pick(cities).code } }),
  ];
  return pick(mix)();
}

// Private: a fault every few seconds, a token expiry every 30 s, connection resets on 5 % of calls.
function scheduleFaults(upstream: MockUpstream): () => void {
  upstream.fault('*', 'reset', { every: 20 });
  const faults: Array<[string, () => void]> = [
    ['product detail 503 x40', () => upstream.fault('/api/product/detail', 'http503', { times: 40 })],
    ['site detail hangs x5', () => upstream.fault('/api/site/detail', 'hang', { times: 5 })],
    ['list-with-points non-JSON x3', () => upstream.fault('/api/site/list-with-points', 'non-json', { times: 3 })],
    ['products list envelope 1001 x5', () => upstream.fault('/api/products/list', { envelope: { code: 1001, msg: 'busy' } }, { times: 5 })],
  ];
  let tick = 0;
  const timer = setInterval(() => {
    tick += 1;
    const [name, inject] = faults[tick % faults.length]!;
    inject();
    faultCounts[name] = (faultCounts[name] ?? 0) + 1;
    if (tick % 6 === 0) {
      upstream.expireAllTokens();
      faultCounts['token expiry'] = (faultCounts['token expiry'] ?? 0) + 1;
    }
  }, 5000);
  return () => {
    clearInterval(timer);
    upstream.clearFaults();
  };
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

