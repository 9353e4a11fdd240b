/**
 * The upstream budget's estimate (graph/budget/estimate.ts) is an upper bound: for generated
 * queries (fast-check, as the fuzzers do), the upstream calls the mock counts never exceed what
 * was estimated before the query ran. Each query runs cold: its own new shared cache and sources,
 * so nothing is cached and no list's cap or size is known, as in a gateway just started; the
 * queries share the mock upstream and a catalog index built beforehand (the index is shared work,
 * charged to no one, and its walks are not the query's). Resolvers run as the gateway runs them,
 * over real HTTP to the mock, and the queries are built around every field within three levels of
 * the roots, which the test checks were all asked for. Each query's calls carry its number (a
 * parameter the mock ignores), so a call a query starts after its answer (a field still loading
 * when a sibling's error ended the execution) is counted to it, checked again at the end.
 */
import fc from 'fast-check';
import { execute, parse, validate, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { readFileSync } from 'node:fs';
import { createSchema } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/base/clock.js';
import { createLruCache } from '../../../src/cache/lru-cache.js';
import { buildProductsCatalog, buildSitesCatalog } from '../../../src/catalog/catalog.js';
import { createTimeReader } from '../../../src/catalog/opening-hours.js';
import { createLoaders } from '../../../src/data/loaders.js';
import { createSources } from '../../../src/data/sources.js';
import { createCursors } from '../../../src/graph/arguments/cursors.js';
import { estimateUpstreamCalls } from '../../../src/graph/budget/estimate.js';
import { resolvers } from '../../../src/graph/resolvers/index.js';
import { createUpstreamApi, type UpstreamApi } from '../../../src/upstream/api.js';
import type { ProductRecord, SiteRecord } from '../../../src/upstream/records.js';
import { compactText, fuzzParameters } from '../../fuzz/settings.js';
import { startUpstream, type StartedUpstream } from '../../helpers/upstream.js';
import { buildDocument, targetsWithin, type Generated } from './estimate-documents.js';

const schema: GraphQLSchema = createSchema({
  typeDefs: readFileSync(new URL('../../../schema.graphql', import.meta.url), 'utf8'),
  resolvers: resolvers as never,
});
/** Generated queries at least, spread evenly over the target paths. */
const MIN_QUERIES = 500;
const TARGET_DEPTH = 3;
const TTL = { citiesMs: 60_000, sitesMs: 60_000, productsMs: 60_000 };
const cursors = createCursors('estimate test secret');
const siteTime = createTimeReader('Asia/Shanghai', systemClock);

let upstream: StartedUpstream;
let api: UpstreamApi;
/** Estimates by query number, for the final count. */
const estimates = new Map<string, { estimate: number; text: string }>();
let index: { sites: ReturnType<typeof buildSitesCatalog>; products: ReturnType<typeof buildProductsCatalog> };
/** Per subscription field: the event its `resolve` turns into the field's value. */
let events: Record<string, unknown>;

beforeAll(async () => {
  upstream = await startUpstream();
  api = createUpstreamApi(upstream.client);
  const sites = await listAll<SiteRecord>('sitesWithPoints');
  const products = await listAll<ProductRecord>('products');
  index = { sites: buildSitesCatalog(sites), products: buildProductsCatalog(products) };
  const listed = sites.find((site) => site.points?.some((point) => point.cargoLanes.some((lane) => lane.goodsCode)))!;
  const point = listed.points!.find((p) => p.cargoLanes.some((lane) => lane.goodsCode))!;
  const lane = point.cargoLanes.find((l) => l.goodsCode)!;
  events = {
    siteStock: { value: (await api.detail('site', listed.code))! },
    productStock: { value: { goodsCode: lane.goodsCode, totalStock: 1, availability: [], updatedAt: '' } },
    stockAlerts: {
      value: { kind: 'LOW', site: listed, point: { ...point, site: listed }, lane, laneIndex: 0, stock: 0, previousStock: 1, threshold: 0, at: '' },
    },
  };
});

afterAll(() => upstream.close());

describe('the upstream budget estimate', () => {
  it('is never below the upstream calls a cold gateway makes, for generated queries reaching every field within depth 3', { timeout: 300_000 }, async () => {
    const roots = [schema.getQueryType()!, schema.getSubscriptionType()!];
    const targets = targetsWithin(schema, roots, TARGET_DEPTH);
    const runs = Math.ceil(MIN_QUERIES / targets.length);
    const asked = new Set<string>();
    let queries = 0;
    let callsSeen = 0;
    for (const [n, target] of targets.entries()) {
      const documents = fc.array(fc.nat({ max: 0xffff }), { minLength: 30, maxLength: 300 }).map((throws) => {
        const generated = buildDocument(schema, upstream.mock.catalog, target, diceOf(throws));
        return Object.assign(generated, { [fc.toStringMethod]: () => compactText(generated.text, 3000) });
      });
      const { seed, numRuns } = fuzzParameters<unknown>(runs);
      await fc.assert(fc.asyncProperty(documents, async (generated) => {
        const { estimate, calls, log } = await runCold(generated);
        queries += 1;
        callsSeen += calls;
        for (const coordinate of generated.coordinates) asked.add(coordinate);
        expect(estimate, `estimated ${estimate}, made ${calls} (${log.join(', ')}): ${generated.text}`).toBeGreaterThanOrEqual(calls);
      }), { seed: (seed ?? 0) + n, numRuns, endOnFailure: true });
    }
    await settled();
    const late = [...callsByQuery()].filter(([q, calls]) => calls > estimates.get(q)!.estimate)
      .map(([q, calls]) => `estimated ${estimates.get(q)!.estimate}, made ${calls}: ${estimates.get(q)!.text}`);
    expect(late).toEqual([]);
    expect(queries).toBeGreaterThanOrEqual(MIN_QUERIES);
    const within = targets.map((path) => `${path.at(-1)!.parent.name}.${path.at(-1)!.field}`);
    expect(within.filter((coordinate) => !asked.has(coordinate))).toEqual([]);
    // The queries reach the upstream, often more than once.
    expect(callsSeen).toBeGreaterThan(queries);
  });
});

// Private: the query's estimate on a cold gateway, then the upstream calls running it there makes.
async function runCold(generated: Generated): Promise<{ estimate: number; calls: number; log: string[] }> {
  const document = parse(generated.text);
  expect(validate(schema, document).map((error) => error.message), generated.text).toEqual([]);
  const operation = document.definitions[0] as OperationDefinitionNode;
  const q = String(estimates.size + 1);
  const client = { ...upstream.client, get: ((path, query, options) => upstream.client.get(path, { ...query, q }, options)) as typeof upstream.client.get };
  const sources = createSources(createUpstreamApi(client), createLruCache({ maxEntries: 10_000, clock: systemClock }), TTL, systemClock);
  const estimate = estimateUpstreamCalls(operation, {}, {}, sources, schema);
  estimates.set(q, { estimate, text: generated.text });
  const contextValue = {
    loaders: createLoaders(sources, {}),
    catalog: { sites: () => Promise.resolve(index.sites), products: () => Promise.resolve(index.products) },
    maxPageSize: 100, siteTime, cursors,
    scope: { readsTheTime: () => undefined, tag: () => undefined, onDataAge: () => undefined, onStale: () => undefined },
  };
  const rootField = (operation.selectionSet.selections[0] as { name: { value: string } }).name.value;
  const rootValue = generated.root === schema.getSubscriptionType() ? events[rootField] : undefined;
  await execute({ schema, document, contextValue, rootValue });
  await settled();
  const log = upstream.mock.callLog().filter((call) => call.query.q === q).map((call) => `${call.path}?${new URLSearchParams(call.query).toString()}`);
  return { estimate, calls: log.length, log };
}

// Private: the upstream calls of each query, by its number, as the mock logged them.
function callsByQuery(): Map<string, number> {
  const calls = new Map<string, number>();
  for (const { query } of upstream.mock.callLog()) if (query.q !== undefined) calls.set(query.q, (calls.get(query.q) ?? 0) + 1);
  return calls;
}

// Private: every record of a list, a page of 50 (the mock's cap) at a time.
async function listAll<T>(kind: 'sitesWithPoints' | 'products'): Promise<T[]> {
  const records: T[] = [];
  for (let page = 1; ; page += 1) {
    const { items, total } = await api.list(kind, page, 50);
    records.push(...(items.filter((item) => item !== null) as T[]));
    if (page * 50 >= total) return records;
  }
}

// Private: background loads (the product prefetch) end too before calls are counted.
async function settled(): Promise<void> {
  let quiet = 0;
  while (quiet < 3) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    quiet = upstream.mock.inFlight() === 0 ? quiet + 1 : 0;
  }
}

function diceOf(throws: number[]): { next(): number } {
  let i = 0;
  return { next: () => throws[i++ % throws.length]! + (i >= throws.length ? i : 0) };
}
