/**
 * Every client recipe in examples/recipes/ (the files docs "For app developers" shows)
 * runs against the gateway in demo mode, as a new app developer would run it after `npm start`,
 * and fetches data of the shape it promises. A recipe added to the folder is run too. The one
 * that sends persisted ids only (relay-persisted.ts) runs against a second demo gateway given the
 * map relay-compiler wrote (`__generated__/persisted-queries.json`), as its `// gateway:` line says.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRecipeHeader } from '../../../scripts/recipe-header.js';
import { startDemo, type Demo } from '../../helpers/demo.js';

const FOLDER = new URL('../../../examples/recipes/', import.meta.url);
const RECIPES = readdirSync(FOLDER).filter((name) => name.endsWith('.ts')).sort();
const PERSISTED_MAP = new URL('__generated__/persisted-queries.json', FOLDER).pathname;
/** Recipes whose `// gateway:` line asks for allow-list mode: they run against the gateway given `PERSISTED_MAP`. */
const ON_PERSISTED = new Set(RECIPES.filter((name) => gatewayOf(name).PERSISTED_OPERATIONS_FILE !== undefined));

function gatewayOf(name: string): Record<string, string> {
  return readRecipeHeader(new URL(name, FOLDER).pathname).gateway;
}

/** What each known recipe must have fetched; a recipe not listed must fetch something non-empty. */
const CHECKS: Record<string, (result: any) => void> = {
  'apollo.ts': (result) => {
    expect(result.sites).toHaveLength(3);
    expect(result.site.code).toBe(result.sites[0].code);
    expect(result.site.points[0].cargoLanes.length).toBeGreaterThan(0);
  },
  'urql.ts': (result) => {
    expect(result.city.name).toBe('上海');
    expect(result.city.sites.items.length).toBeGreaterThan(0);
    expect(result.siteStock.code).toBe(result.city.sites.items[0].code);
    expect(result.siteStock.points[0].cargoLanes.length).toBeGreaterThan(0);
  },
  'relay.ts': (result) => {
    expect(result.total).toBeGreaterThan(0);
    expect(result.items[0]).toMatchObject({ id: expect.any(String), city: { name: '上海' } });
  },
  'relay-persisted.ts': (result) => {
    expect(result).toMatchObject({ id: expect.any(String), code: 'S000001', city: { name: expect.any(String) } });
  },
  'graphql-ws-node.ts': (result) => {
    expect(result.errors).toBeUndefined();
    expect(result.data.siteStock.code).toBe('S000001');
    expect(result.data.siteStock.points.length).toBeGreaterThan(0);
  },
  'mobile.ts': (result) => {
    expect(result.unknown.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect(result.registered.body.data.product.productName).toEqual(expect.any(String));
    expect(result.known.body).toEqual(result.registered.body);
    expect(result.known.cacheControl).toMatch(/^public, max-age=\d+$/);
    expect(result.deferred.contentType).toMatch(/^multipart\/mixed/);
    expect(result.deferred.parts[0]).toMatchObject({ data: { site: { code: 'S000001' } }, hasNext: true });
    expect(result.deferred.parts.at(-1)).toMatchObject({ incremental: [{ path: ['site'] }], hasNext: false });
  },
};

/** True when `value` holds at least one non-empty list or scalar: the recipe fetched something. */
function holdsData(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0 && value.some(holdsData);
  if (value !== null && typeof value === 'object') return Object.values(value).some(holdsData);
  return value !== null && value !== undefined;
}

/** Requests made through the global fetch while `body` runs: method, URL, Accept and JSON body. */
async function recordingFetch<T>(body: () => Promise<T>) {
  const original = globalThis.fetch;
  const requests: { method: string; url: string; accept: string | null; body: any }[] = [];
  globalThis.fetch = (input, init) => {
    const request = new Request(input, init);
    const text = typeof init?.body === 'string' ? init.body : undefined;
    requests.push({ method: request.method, url: request.url, accept: request.headers.get('accept'), body: text && JSON.parse(text) });
    return original(input, init);
  };
  try {
    return { result: await body(), requests };
  } finally {
    globalThis.fetch = original;
  }
}

describe('the client recipes, against the demo gateway', () => {
  let demo: Demo;
  let persisted: Demo;
  beforeAll(async () => {
    [demo, persisted] = await Promise.all([startDemo(), startDemo({ PERSISTED_OPERATIONS_FILE: PERSISTED_MAP })]);
  });
  afterAll(() => Promise.all([demo?.stop(), persisted?.stop()]));

  it('runs relay-persisted.ts, and only it, against the map its gateway line names', () => {
    expect([...ON_PERSISTED]).toEqual(['relay-persisted.ts']);
    expect(gatewayOf('relay-persisted.ts')).toEqual({ PERSISTED_OPERATIONS_FILE: PERSISTED_MAP });
  });

  it('finds the recipes of this folder, each exporting run(url)', async () => {
    expect(RECIPES).toEqual(expect.arrayContaining(Object.keys(CHECKS)));
    for (const name of RECIPES) expect(typeof (await import(new URL(name, FOLDER).href)).run, name).toBe('function');
  });

  it.each(RECIPES)('%s fetches non-empty data of the shape it promises', async (name) => {
    const { run } = await import(new URL(name, FOLDER).href);
    const result = await run(ON_PERSISTED.has(name) ? persisted.url : demo.url);
    expect(holdsData(result), name).toBe(true);
    CHECKS[name]?.(result);
  });

  it('apollo.ts sends each query’s hash alone before the query, and asks for @defer in the 2022 format', async () => {
    const { run } = await import(new URL('apollo.ts', FOLDER).href);
    const { requests } = await recordingFetch(() => run(demo.url));
    const hashOf = (request: (typeof requests)[number]) => request.body.extensions.persistedQuery.sha256Hash;
    expect(requests.map(hashOf)).toEqual(requests.map(() => expect.stringMatching(/^[0-9a-f]{64}$/)));
    expect(requests[0]!.body.query).toBeUndefined();
    // A query goes with its hash only after the hash alone was refused (the earlier run stored some).
    requests.forEach((request, i) => {
      if (request.body.query !== undefined) expect(requests[i - 1]!.body).toEqual({ ...request.body, query: undefined });
    });
    const deferred = requests.filter((request) => request.body.operationName === 'SiteWithLanes');
    expect(deferred.length).toBeGreaterThan(0);
    for (const request of deferred) expect(request.accept).toContain('deferSpec=20220824');
  });

  it('relay.ts runs the artifact relay-compiler makes of its query today', () => {
    // --validate exits non-zero when an artifact under __generated__ is missing or stale.
    const bin = new URL('../../../node_modules/.bin/relay-compiler', import.meta.url).pathname;
    // Run in the config's folder: relay-compiler looks for persistConfig's file from the working directory.
    expect(() => execFileSync(bin, ['--validate'], { cwd: FOLDER, stdio: 'pipe' })).not.toThrow();
  });

  it('relay-persisted.ts sends its query’s id alone, which the map relay-compiler wrote lists', async () => {
    const { run } = await import(new URL('relay-persisted.ts', FOLDER).href);
    const { default: artifact } = await import(new URL('__generated__/relayPersistedSiteQuery.graphql.ts', FOLDER).href);
    const { requests } = await recordingFetch(() => run(persisted.url));
    expect(requests.map((request) => request.body)).toEqual([{ doc_id: artifact.params.id, variables: { code: 'S000001' } }]);
    // The same query as text is refused by that gateway: the id is what lets it run.
    const refused = await fetch(persisted.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: artifact.params.text, variables: { code: 'S000001' } }),
    });
    expect((await refused.json()).errors[0].extensions.code).toBe('PERSISTED_QUERY_ONLY');
  });

  it('the persisted map lists every Relay artifact’s id with its text', async () => {
    // relay-compiler --validate checks the artifacts, not the map; this checks the map against them.
    const map = JSON.parse(readFileSync(PERSISTED_MAP, 'utf8')) as Record<string, string>;
    const artifacts = readdirSync(new URL('__generated__/', FOLDER)).filter((name) => name.endsWith('.graphql.ts'));
    expect(artifacts.length).toBe(Object.keys(map).length);
    for (const name of artifacts) {
      const { default: artifact } = await import(new URL(`__generated__/${name}`, FOLDER).href);
      expect(map[artifact.params.id], name).toBe(artifact.params.text);
    }
  });
});
