/**
 * The docs' pagination recipes (examples/recipes/*-pagination.ts) with each client's own
 * pagination helper: Apollo Client 4's `relayStylePagination()` with `fetchMore`, urql
 * Graphcache's `relayPagination()`, and Relay's runtime (`@connection`, ConnectionHandler) with
 * the query relay-compiler compiled (committed under examples/recipes/__generated__, checked
 * current here). Each pages through a city's sites, a few a page, to the end, and must see
 * exactly what the page field `City.sites` lists.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run as apollo } from '../../../examples/recipes/apollo-pagination.js';
import { run as relay } from '../../../examples/recipes/relay-pagination.js';
import { run as urql } from '../../../examples/recipes/urql-pagination.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** Sites a page: several pages for the busiest city of the test data. */
const FIRST = 3;

let h: Harness;
let city: string;
let expected: unknown[];

beforeAll(async () => {
  h = await startGateway();
  const counts = new Map<string, number>();
  for (const site of h.mock.catalog.sites) counts.set(site.cityCode, (counts.get(site.cityCode) ?? 0) + 1);
  city = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
  const { data } = await h.query('query($code: String!) { city(code: $code) { sites(pageSize: 100) { total items { id code name } } } }', { code: city });
  expected = data.city.sites.items;
  expect(expected.length).toBe(data.city.sites.total);
  expect(expected.length).toBeGreaterThan(2 * FIRST);
});

afterAll(() => h.close());

describe('each client\'s own pagination helper, through the recipes', () => {
  it('Apollo Client\'s relayStylePagination, with fetchMore, sees every site of the city in order', async () => {
    expect(await apollo(h.url, city, FIRST)).toEqual(expected);
  });

  it('urql Graphcache\'s relayPagination sees every site of the city in order', async () => {
    expect(await urql(h.url, city, FIRST)).toEqual(expected);
  });

  it('Relay\'s runtime, with @connection and a compiled query, sees every site of the city in order', async () => {
    expect(await relay(h.url, city, FIRST)).toEqual(expected);
  });

  it('runs the Relay query relay-compiler compiles from the recipe as it is now', async () => {
    // --validate: fails when compiling the recipe would change the committed artifact.
    await expect(promisify(execFile)('npx', ['relay-compiler', '--validate'], { cwd: `${ROOT}examples/recipes` })).resolves.toBeDefined();
  }, 60_000);
});
