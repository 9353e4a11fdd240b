import { afterEach, describe, expect, it } from 'vitest';
import { createUpstreamCharges } from '../../../src/graph/budget/charges.js';
import { callsByPath, startGateway, type Harness } from '../../helpers/gateway.js';

const DEEP = (page: number) =>
  `sites(page: ${page}, pageSize: 100) { items { code points { cargoLanes { stock product { productName } } } } }`;

describe('the upstream budget', () => {
  let h: Harness;
  afterEach(() => h.close());

  /** A gateway that has learnt the lists' caps and sizes, with nothing fresh in its cache. */
  async function warmedUp(budget: number): Promise<Harness> {
    const harness = await startGateway({
      mock: { catalog: { sites: 250 } },
      env: { MAX_UPSTREAM_CALLS_PER_OPERATION: String(budget), CACHE_STALE_IF_ERROR_S: '0' },
    });
    // Each within the smallest budget: a cold query's estimate counts the pages that learn the cap.
    await harness.query(`{ sites(pageSize: 100) { items { points { code } } } }`);
    await harness.query(`{ products(pageSize: 100) { total } }`);
    harness.clock.advance(3_600_001);
    harness.mock.resetCounters();
    return harness;
  }

  it('refuses a deep query at the page-size cap over the budget, naming the estimate, with 0 upstream calls', async () => {
    // 100 sites = 2 list-with-points pages of 50; 80 products = 2 product-list pages of 50.
    h = await warmedUp(3);
    const { data, errors } = await h.query(`{ ${DEEP(1)} }`);
    expect(data ?? null).toBeNull();
    expect(errors?.[0]?.extensions?.code).toBe('UPSTREAM_BUDGET_EXCEEDED');
    expect(errors?.[0]?.message).toContain('about 4 upstream calls');
    expect(h.mock.calls()).toBe(0);
    expect(h.mock.calls('/oauth/token')).toBe(0);
  });

  it('runs the same query at a budget of exactly its estimate, making as many calls as estimated', async () => {
    h = await warmedUp(4);
    const { data, errors } = await h.query(`{ ${DEEP(1)} }`);
    expect(errors).toBeUndefined();
    expect(data.sites.items).toHaveLength(100);
    expect(callsByPath(h.mock)).toEqual({ '/api/site/list-with-points': 2, '/api/products/list': 2 });
  });

  it('counts nothing for what is cached', async () => {
    h = await warmedUp(3);
    await h.query(`{ products(pageSize: 100) { total } }`); // the product list, fresh again
    const { errors } = await h.query(`{ ${DEEP(3)} } `);
    expect(errors).toBeUndefined();
  });

  it('admits every single query shape of the contract at MAX_PAGE_SIZE with full nesting by default', async () => {
    h = await startGateway({ mock: { catalog: { sites: 250 } } });
    const site = h.mock.catalog.sites[0]!;
    const { errors } = await h.query(
      `query($c: String!) {
        ${DEEP(1)}
        cities(pageSize: 100) { items { cityId } }
        products(pageSize: 100) { items { goodsCode } }
        site(code: $c) { city { cityId name } points { site { code } cargoLanes { guidePrice product { ipName } } } }
      }`,
      { c: site.code },
    );
    expect(errors).toBeUndefined();
  });

  it('refuses dozens of aliased deep lists by default, before any upstream call', async () => {
    // Shape and item limits off the way (they refuse this too): the budget alone decides here.
    h = await startGateway({
      env: { MAX_ALIASES: '100', MAX_QUERY_TOKENS: '5000', MAX_QUERY_COST: '100000', MAX_ITEMS_PER_OPERATION: '1000000' },
    });
    const aliases = Array.from({ length: 60 }, (_, i) => `s${i}: ${DEEP(i + 1)}`).join('\n');
    const { errors } = await h.query(`{ ${aliases} }`);
    expect(errors?.[0]?.extensions?.code).toBe('UPSTREAM_BUDGET_EXCEEDED');
    expect(h.mock.calls()).toBe(0);
  });

  it('admits a dozen aliased deep lists within the default shape limits', async () => {
    h = await startGateway({ mock: { catalog: { sites: 250 } } });
    const aliases = Array.from({ length: 12 }, (_, i) => `s${i}: ${DEEP(i + 1)}`).join('\n');
    const { errors } = await h.query(`{ ${aliases} }`);
    expect(errors).toBeUndefined();
  });

  it('stops an operation that turns out costlier than estimated once it reaches the budget', async () => {
    // Cold, the walk behind Site.city looks like its first page (two calls); 250 sites take 6 of 50.
    h = await startGateway({ mock: { catalog: { sites: 250 } }, env: { MAX_UPSTREAM_CALLS_PER_OPERATION: '5' } });
    const { data, errors } = await h.query(`{ site(code: "S000001") { code city { name } } }`);
    expect(data.site.code).toBe('S000001');
    expect(errors?.[0]?.extensions?.code).toBe('UPSTREAM_BUDGET_EXCEEDED');
    expect(h.mock.calls()).toBeLessThanOrEqual(5);
  });

  it('holds for a whole batched request: ten operations of fifteen lookups share one budget of 100', async () => {
    h = await startGateway({ mock: { catalog: { sites: 250 } }, env: { BATCHING_LIMIT: '10' } });
    const sites = h.mock.catalog.sites;
    const operation = (n: number) =>
      `{ ${Array.from({ length: 15 }, (_, i) => `s${i}: site(code: "${sites[n * 15 + i]!.code}") { name }`).join(' ')} }`;
    const response = await fetch(`${h.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(Array.from({ length: 10 }, (_, n) => ({ query: operation(n) }))),
    });
    const answers = (await response.json()) as Array<{ errors?: Array<{ extensions?: { code?: string } }> }>;
    expect(answers).toHaveLength(10);
    const refused = answers.filter((answer) => answer.errors?.[0]?.extensions?.code === 'UPSTREAM_BUDGET_EXCEEDED');
    // 6 × 15 = 90 fit in 100; a seventh would make 105.
    expect(refused).toHaveLength(4);
    expect(JSON.stringify(refused[0])).toContain("about 15 upstream calls, with the 90 its batch's other operations could cost, more than one request may");
    expect(answers.filter((answer) => answer.errors === undefined)).toHaveLength(6);
    expect(callsByPath(h.mock)).toEqual({ '/api/site/detail': 90 });
  });

  it('stops the upstream calls of a batch at the budget, counting its operations together', () => {
    const chargesOf = createUpstreamCharges(3);
    const batch = { charge: undefined };
    chargesOf(batch)();
    chargesOf(batch)();
    chargesOf(batch)();
    expect(() => chargesOf(batch)()).toThrow('more than 3 upstream calls');
    expect(() => chargesOf({ charge: undefined })()).not.toThrow();
  });
});
