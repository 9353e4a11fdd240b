/**
 * Baseline: what a client app does without the gateway to show the same 50 sites with their
 * lanes' products, measured against the mock upstream directly with undici. Two clients:
 *
 * - per product: token, the site page, then one product detail per distinct goods code, through
 *   `CLIENT_CONNECTIONS` connections (what a browser or OkHttp allows per host);
 * - list pages: what a careful client does: token, then the site page and product-list page 1
 *   together, then the remaining product pages (largest page size) all at once.
 */
import { Pool } from 'undici';
import { CLIENT_CONNECTIONS, COLD_SITES, UPSTREAM_MAX_PAGE_SIZE } from '../config.js';
import { callTimings, roundTrips } from '../load/round-trips.js';
import type { BenchMock } from '../processes/mock.js';

/** What one client strategy cost. */
export interface RestClientResult {
  strategy: string;
  latencyMs: number;
  /** Upstream calls, token request included. */
  calls: number;
  roundTrips: number;
  maxInFlight: number;
}

interface Envelope<T> { code: number; result: T }
interface SitePage { items: Array<{ points?: Array<{ cargolanes?: Array<{ goodsCode?: string }> }> }> }
interface ProductPage { total: number }

/** Measure both client strategies, one after the other, each from an empty state. */
export async function restClients(mock: BenchMock): Promise<RestClientResult[]> {
  const results: RestClientResult[] = [];
  for (const [strategy, run] of [['per product', perProduct], ['list pages', listPages]] as const) {
    const pool = new Pool(mock.url, { connections: strategy === 'per product' ? CLIENT_CONNECTIONS : UPSTREAM_MAX_PAGE_SIZE });
    await mock.reset();
    const started = performance.now();
    await run(pool, await fetchToken(pool, mock));
    const latencyMs = Math.round(performance.now() - started);
    const { log, spans } = await mock.log();
    results.push({ strategy, latencyMs, calls: log.length, roundTrips: roundTrips(spans), maxInFlight: callTimings(spans).maxInFlight });
    await pool.close();
  }
  return results;
}

// Private: token, site page, then each distinct product's detail (the pool queues beyond its connections).
async function perProduct(pool: Pool, token: string): Promise<void> {
  const sites = await getJson<SitePage>(pool, token, `/api/site/list-with-points?page=1&pageSize=${COLD_SITES}`);
  const codes = new Set(sites.items.flatMap((site) => (site.points ?? []).flatMap((point) =>
    (point.cargolanes ?? []).map((lane) => lane.goodsCode).filter((code): code is string => code !== undefined))));
  await Promise.all([...codes].map((code) => getJson(pool, token, `/api/product/detail?goodsCode=${encodeURIComponent(code)}`)));
}

// Private: site page and the first product page together; once `total` is known, the rest at once.
async function listPages(pool: Pool, token: string): Promise<void> {
  const size = UPSTREAM_MAX_PAGE_SIZE;
  const [, first] = await Promise.all([
    getJson<SitePage>(pool, token, `/api/site/list-with-points?page=1&pageSize=${COLD_SITES}`),
    getJson<ProductPage>(pool, token, `/api/products/list?page=1&pageSize=${size}`),
  ]);
  const pages = Math.ceil(first.total / size);
  await Promise.all(Array.from({ length: pages - 1 }, (_, i) => getJson(pool, token, `/api/products/list?page=${i + 2}&pageSize=${size}`)));
}

// Private: the client_credentials grant, credentials in HTTP Basic.
async function fetchToken(pool: Pool, mock: BenchMock): Promise<string> {
  const basic = Buffer.from(`${mock.clientId}:${mock.clientSecret}`).toString('base64');
  const { statusCode, body } = await pool.request({
    method: 'POST',
    path: new URL(mock.tokenUrl).pathname,
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  const json = (await body.json()) as { access_token?: string };
  if (statusCode !== 200 || !json.access_token) throw new Error(`token request failed: HTTP ${statusCode}`);
  return json.access_token;
}

// Private: GET `path` with the bearer token; the envelope's `result`.
async function getJson<T>(pool: Pool, token: string, path: string): Promise<T> {
  const { statusCode, body } = await pool.request({ method: 'GET', path, headers: { authorization: `Bearer ${token}` } });
  const envelope = (await body.json()) as Envelope<T>;
  if (statusCode !== 200 || envelope.code !== 0) throw new Error(`GET ${path}: HTTP ${statusCode}, code ${envelope.code}`);
  return envelope.result;
}

/** A token for Mesh, which is handed one rather than fetching its own. */
export async function tokenFor(mock: BenchMock): Promise<string> {
  const pool = new Pool(mock.url, { connections: 1 });
  try {
    return await fetchToken(pool, mock);
  } finally {
    await pool.close();
  }
}
