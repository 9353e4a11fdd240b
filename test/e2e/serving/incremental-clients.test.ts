/**
 * Incremental delivery through real clients: Apollo Client (multipart `@defer` over HttpLink) and
 * urql (its fetch exchange), both over real HTTP to the gateway. The deferred part's upstream
 * calls are held by a pass-through (test/helpers/held-upstream.ts) until the test has seen the
 * initial part, so "initial before deferred" is an order of events, not a race of timings.
 */
import { ApolloClient, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { Client, fetchExchange } from '@urql/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createGraphQLClient } from '../../../examples/web/src/client.js';
import { ProductAvailabilityDocument } from '../../../examples/web/src/generated/graphql.js';
import { startHeldGateway, type HeldGateway, type HeldUpstream } from '../../helpers/held-upstream.js';
import { startGateway } from '../../helpers/gateway.js';
import { SITE_DEFERRED, SITE_PLAIN } from './incremental-queries.js';

/** The paths a lane's product is loaded from: the deferred part's only upstream calls. */
const PRODUCT_PATHS = ['/api/products/list', '/api/product/detail'];

const pendingProductCalls = (held: HeldUpstream) => PRODUCT_PATHS.reduce((sum, path) => sum + held.waiting(path), 0);
const answeredProductCalls = (held: HeldUpstream) => PRODUCT_PATHS.reduce((sum, path) => sum + held.passed(path), 0);

/** The answer without @defer, from a gateway of its own (nothing shared with the run under test). */
async function plainAnswer(site: string): Promise<unknown> {
  const h = await startGateway();
  try {
    const answer = await h.query(SITE_PLAIN, { c: site });
    expect(answer.errors).toBeUndefined();
    return answer.data;
  } finally {
    await h.close();
  }
}

describe('incremental delivery to real clients', () => {
  let s: HeldGateway | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it('gives Apollo Client the site at once and its lanes when their products arrive, merged as the plain answer', async () => {
    s = await startHeldGateway();
    const { h, held, site } = s;
    for (const path of PRODUCT_PATHS) held.hold(path);
    const client = new ApolloClient({
      link: new HttpLink({ uri: `${h.url}/graphql`, fetch }),
      cache: new InMemoryCache(),
      incrementalHandler: new Defer20220824Handler(),
    });
    const seen: Array<{ data: any; productsWhenSeen: number }> = [];
    const subscription = client
      .watchQuery({ query: gql(SITE_DEFERRED), variables: { c: site }, fetchPolicy: 'network-only' })
      .subscribe((result) => {
        if ((result.data as { site?: unknown } | undefined)?.site) seen.push({ data: result.data, productsWhenSeen: answeredProductCalls(held) });
      });
    try {
      await vi.waitFor(() => expect(seen.length).toBeGreaterThan(0), { timeout: 10_000 });
      expect(seen[0]!.data.site.name).toEqual(expect.any(String));
      expect(seen[0]!.data.site.points).toBeUndefined();
      expect(seen[0]!.productsWhenSeen).toBe(0);
      // The deferred part's call is under way, and the client still has only the first part.
      await vi.waitFor(() => expect(pendingProductCalls(held)).toBeGreaterThan(0), { timeout: 10_000 });
      expect(seen).toHaveLength(1);

      for (const path of PRODUCT_PATHS) held.release(path);
      await vi.waitFor(() => expect(seen.at(-1)!.data.site.points).toBeDefined(), { timeout: 10_000 });
      expect(JSON.parse(JSON.stringify(seen.at(-1)!.data, withoutTypename))).toEqual(await plainAnswer(site));
    } finally {
      subscription.unsubscribe();
      client.stop();
    }
  });

  it('gives urql the site at once and its lanes when their products arrive, merged as the plain answer', async () => {
    s = await startHeldGateway();
    const { h, held, site } = s;
    for (const path of PRODUCT_PATHS) held.hold(path);
    const client = new Client({ url: `${h.url}/graphql`, exchanges: [fetchExchange], preferGetMethod: false });
    const seen: Array<{ data: any; hasNext: boolean; productsWhenSeen: number }> = [];
    const { unsubscribe } = client.query(SITE_DEFERRED, { c: site }).subscribe((result) => {
      expect(result.error).toBeUndefined();
      seen.push({ data: result.data, hasNext: result.hasNext, productsWhenSeen: answeredProductCalls(held) });
    });
    try {
      await vi.waitFor(() => expect(seen.length).toBeGreaterThan(0), { timeout: 10_000 });
      expect(seen[0]!.hasNext).toBe(true);
      expect(seen[0]!.data.site.points).toBeUndefined();
      expect(seen[0]!.productsWhenSeen).toBe(0);
      // The deferred part's call is under way, and the client still has only the first part.
      await vi.waitFor(() => expect(pendingProductCalls(held)).toBeGreaterThan(0), { timeout: 10_000 });
      expect(seen).toHaveLength(1);

      for (const path of PRODUCT_PATHS) held.release(path);
      await vi.waitFor(() => expect(seen.at(-1)!.hasNext).toBe(false), { timeout: 10_000 });
      expect(seen.at(-1)!.data).toEqual(await plainAnswer(site));
    } finally {
      unsubscribe();
    }
  });

  it("gives the example page's client (urql with graphcache) a product's name before its availability", async () => {
    s = await startHeldGateway();
    const { h, held } = s;
    // The availability is answered from the catalog index, built from the sites with their points.
    const INDEX_PATH = '/api/site/list-with-points';
    held.hold(INDEX_PATH);
    const product = h.mock.catalog.products[0]!;
    const site = h.mock.catalog.sites.find((one) => one.lat !== null && one.lng !== null)!;
    const variables = { goodsCode: product.goodsCode, near: { lat: site.lat!, lng: site.lng! }, first: 5 };
    const seen: Array<{ productName: string | null; availability: unknown; stale: boolean }> = [];
    const { unsubscribe } = createGraphQLClient(`${h.url}/graphql`)
      .query(ProductAvailabilityDocument, variables)
      .subscribe((result) => {
        expect(result.error).toBeUndefined();
        const found = result.data?.product;
        if (found) seen.push({ productName: found.productName, availability: found.availability, stale: result.stale });
      });
    try {
      await vi.waitFor(() => expect(seen.length).toBeGreaterThan(0), { timeout: 10_000 });
      expect(seen[0]).toMatchObject({ productName: product.productName, availability: undefined });
      expect(held.passed(INDEX_PATH)).toBe(0);
      await vi.waitFor(() => expect(held.waiting(INDEX_PATH)).toBeGreaterThan(0), { timeout: 10_000 });
      expect(seen).toHaveLength(1);

      held.release(INDEX_PATH);
      await vi.waitFor(() => expect(seen.at(-1)!.availability).toBeInstanceOf(Array), { timeout: 10_000 });
    } finally {
      unsubscribe();
    }
  });
});

// Private: Apollo Client adds __typename to every selection; the plain answer has none.
function withoutTypename(key: string, value: unknown): unknown {
  return key === '__typename' ? undefined : value;
}
