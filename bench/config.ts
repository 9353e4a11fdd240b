/**
 * What the benchmark runs at: the scale and durations, in one place. Only durations and
 * the gateway's log level can be overridden from the environment, so that a short development
 * run (`BENCH_SECONDS=3`) exercises exactly the same scenarios as a full one.
 */
import { fileURLToPath } from 'node:url';

/** Benchmark scale of the mock upstream: 30 cities, 2,000 × 4 × 8 lanes, 1,000 products. */
export const CATALOG = { cities: 30, sites: 2000, pointsPerSite: 4, lanesPerPoint: 8, products: 1000 } as const;
/** Delay of every upstream call, token endpoint included, in ms. */
export const UPSTREAM_LATENCY_MS = 20;
/** The upstream silently caps `pageSize` at this. */
export const UPSTREAM_MAX_PAGE_SIZE = 100;

/** Sites in the cold deep query (scenario a). */
export const COLD_SITES = 50;
/** Sites in the warm deep query: small enough that the load generator is not the bottleneck. */
export const WARM_SITES = 10;
/** The product of the small query. */
export const SMALL_GOODS_CODE = 'G00001';

/** Concurrent client connections of every load run. */
export const CONNECTIONS = 32;
/** Length of each measured load run, in seconds (default 15; `BENCH_SECONDS=3` for development). */
export const SECONDS = positiveNumber('BENCH_SECONDS', 15);
/** Unmeasured load before each measured run, so JIT, pools and caches settle. */
export const WARMUP_SECONDS = Math.min(2, Math.max(1, Math.round(SECONDS / 5)));
/**
 * Load before each serving run, in s. Its checked warm-up has already sent every key once
 * (filling the caches); the load settles the JIT and the heap, which a fresh process needs
 * several seconds of: three rounds on one gateway, 1 s of warm-up each, gave the executed
 * one-product query p99 8.1 ms in the first and 3.2 to 3.4 ms in the next two.
 */
export const SERVING_WARMUP_SECONDS = 5;
/** The same for the bare server, whose one handler has nothing more to settle, in s. */
export const BARE_WARMUP_SECONDS = 2;
/**
 * The ratios to the bare server (the req/s targets of hits of one product and one site, and one product executed) come from slices of each server
 * in turn (scenarios/interleaved.ts says why): this many pairs, half with the gateway first,
 * of this many seconds each.
 */
export const INTERLEAVED_ROUNDS = 6;
export const INTERLEAVED_SLICE_SECONDS = 1;
/** Length of each compressed-answer hit run (identity, br), in s: `BENCH_SECONDS` up to 8, so the whole run stays under 15 min. */
export const COMPRESSION_SECONDS = Math.min(SECONDS, 8);
/**
 * Connections a client app opens to one host: browsers allow 6 over HTTP/1.1 (OkHttp 5). The
 * "without the gateway" baseline fetches products through this many.
 */
export const CLIENT_CONNECTIONS = 6;
/** Upstream sockets Mesh may open: the gateway's own default `UPSTREAM_MAX_CONCURRENCY`. */
export const MESH_MAX_SOCKETS = 32;
/** The gateway's default TTL for sites (`CACHE_TTL_SITES_S`), in ms: its site answers are fresh this long. */
export const GATEWAY_SITES_TTL_MS = 30_000;
/** Mesh's response-cache TTL in ms: the gateway's TTL for sites. */
export const MESH_CACHE_TTL_MS = GATEWAY_SITES_TTL_MS;
/**
 * Cache TTL (sites, products, cities) of the gateway in the token-expiry scenario, in s. With
 * the defaults (30 s and more) the mixed workload is served from cache within seconds, and no
 * call would meet the expired token; 1 s keeps a steady stream of calls going upstream.
 */
export const EXPIRY_CACHE_TTL_S = 1;
/** Replica counts of the scale-out scenario: every replica shares one Redis (`REDIS_URL`). */
export const SCALE_OUT_REPLICAS = [1, 2, 4, 8] as const;
/**
 * Requests of each replica count's shared-cache run: a warm-up, then the measured part (1,000
 * per second of `BENCH_SECONDS`, at most 10 s' worth). A count, not a duration: every replica
 * count then sends the same workload, and calls per 1,000 requests compare like with like.
 */
export const SCALE_OUT_REQUESTS = Math.round(Math.min(SECONDS, 10) * 1000);
export const SCALE_OUT_WARMUP_REQUESTS = Math.round(SCALE_OUT_REQUESTS / 5);
/**
 * Bound on each of those runs, in s: only a guard against a run that hangs. Eight cold replicas
 * on one core serve tens of requests per second at first (eight module loads, eight in-process
 * caches warming from Redis), so the count, not this bound, must end every run: a count cut short
 * would spread the same first fetches over fewer requests.
 */
export const SCALE_OUT_MAX_SECONDS = 60;
/**
 * Sites TTL of the shared-cache run, in s (products and cities keep their defaults, 600 and
 * 3,600): longer than the slowest count's runs, so that nothing expires within them and every
 * upstream call is a first fetch, which sharing should make once for the fleet. With the default
 * 30 s, eight replicas on one core fetch the sites again before their count is sent.
 */
export const SCALE_OUT_SITES_TTL_S = 600;
/** Length of each replica count's token-expiry run (short TTLs), in s; tokens expire halfway. */
export const SCALE_OUT_EXPIRY_SECONDS = Math.min(SECONDS, 6);
/**
 * `INDEX_REFRESH_S` of the catalog-index gateway, in s: longer than the scenario, so that its
 * warm runs measure queries on one built index, never a background rebuild (the default, the
 * sites TTL of 30 s, would rebuild the sites part halfway through).
 */
export const INDEX_REFRESH_S = 3600;
/** Requests of each query sent one at a time on the warm index (100 per second of `BENCH_SECONDS`, at most 1,500). */
export const INDEX_SEQUENTIAL_REQUESTS = Math.round(Math.min(SECONDS, 15) * 100);
/** Index queries run in-process per query kind, after as many again unmeasured. */
export const INDEX_PROBE_QUERIES = 20_000;
/** The target for index queries on a warm index: p99 in the gateway under this, in ms. */
export const INDEX_P99_TARGET_MS = 5;
/** The performance issue's budget for the gateway's resident memory, in MB. */
export const RSS_BUDGET_MB = 250;
/** Its budget for the gateway that ran the cold, warm and mixed runs, after the same walk, in MB. */
export const RSS_AFTER_LOAD_BUDGET_MB = 200;
/** The serving scenarios' cities page: the same page every request. */
export const CITIES_PAGE = { page: 1, pageSize: 20 } as const;
/** Random `sitesNear` queries checked against the mock's data before each `sitesNear` load run (its keys have no end). */
export const SITES_NEAR_CHECKS = 200;
/**
 * Distinct random `sitesNear` bodies made for each serving load run, per second of it, sent in
 * turn: twice the gateway's `sitesNear` rate and more (2.8–3.6k req/s, `bench/RESULTS.md`), so
 * that no query repeats within a run. Faster peers (the bare server's fixed answer) go round.
 */
export const SITES_NEAR_BODIES_PER_SECOND = 8000;
/** Requests in flight while the serving scenarios check every key's answer (a cold peer fetches as it goes). */
export const CHECK_CONCURRENCY = 32;
/** The mix: one deep page (response cache off) to every this many small queries, over the same connections. */
export const MIX_SMALL_PER_DEEP = 20;
/**
 * The serving baselines, in req/s: the 50-site deep page with the response cache off, and
 * `sitesNear` under load at random coordinates (`bench/RESULTS.md` of 2026-11-21). The serving
 * targets were multiples of these; the deep page's is 150 req/s (`report/serving.ts`).
 */
export const SERVING_BASELINE = { deepPageOffRps: 50, sitesNearRps: 1466 } as const;
/** Sites the live scenario's subscribers watch: every 40th of the catalog's 2,000, spread over its list pages. */
export const LIVE_SITES = 50;
/** SSE subscribers of each watched site: 1,000 in all. */
export const LIVE_SUBSCRIBERS_PER_SITE = 20;
/**
 * `LIVE_POLL_S` of the live scenario's gateway, in s: 2 rather than the default 10, so that its
 * 60 s hold 30 poll intervals (delivery latency scales with it: a change waits for the next poll).
 */
export const LIVE_POLL_S = 2;
/** Length of the live scenario's changes, in s: 4 × `BENCH_SECONDS` (60 by default, 12 with `BENCH_SECONDS=3`). */
export const LIVE_SECONDS = Math.max(4, Math.round(SECONDS * 4));
/** Lanes of the watched sites the mock changes each second of the live scenario (`mutateStock`). */
export const LIVE_CHANGES_PER_SECOND = 5;
/** Scenarios that can run on their own (`BENCH_ONLY=scale-out`): no reports are written then. */
export const ONLY_CHOICES = ['scale-out', 'index', 'tracing', 'serving', 'live', 'start', 'compression', 'warm'] as const;
/** `BENCH_ONLY`, when set: that scenario alone, for development. */
export const ONLY = onlyChoice(process.env.BENCH_ONLY);
/** The gateway's log level: its default (`info`, one line per request), as it is deployed. */
export const GATEWAY_LOG_LEVEL = process.env.BENCH_GATEWAY_LOG_LEVEL ?? 'info';

/** Core of the system under test (gateway, bare server, Mesh: one at a time). */
export const SUT_CORE = 0;
/** Core of the load generator (this process, and wrk when it runs) and the mock upstream. */
export const LOAD_CORE = 1;

/** The repository root. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));
export const MESH_DIR = fileURLToPath(new URL('./peers/mesh/', import.meta.url));

// Private: a positive number from the environment, else `fallback`; anything else is an error.
function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a number > 0, but got: ${JSON.stringify(raw)}`);
  return value;
}

// Private: `BENCH_ONLY` checked against the scenarios that can run alone; unset or empty: all.
function onlyChoice(raw: string | undefined): (typeof ONLY_CHOICES)[number] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const choice = ONLY_CHOICES.find((name) => name === raw.trim());
  if (choice === undefined) throw new Error(`BENCH_ONLY must be one of ${ONLY_CHOICES.join(', ')}, but got: ${JSON.stringify(raw)}`);
  return choice;
}
