/**
 * Persisted documents end to end with Apollo's own tools (docs "Persisted documents"): the
 * manifest is written by `@apollo/generate-persisted-query-manifest` from the example page's
 * operations (examples/web/src/operations.graphql), the gateway is given it as its list, and
 * Apollo Client 4 with its persisted-queries link and `generatePersistedQueryIdsFromManifest`
 * runs the page's queries through it, sending ids only.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import { createPersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { generatePersistedQueryManifest, type PersistedQueryManifest } from '@apollo/generate-persisted-query-manifest';
import { generatePersistedQueryIdsFromManifest } from '@apollo/persisted-query-lists';
import { parse, print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CitiesDocument, CitySitesDocument, SearchProductsDocument } from '../../../examples/web/src/generated/graphql.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';

const OPERATIONS = new URL('../../../examples/web/src/operations.graphql', import.meta.url);
const dir = mkdtempSync(join(tmpdir(), 'vending-graph-apollo-manifest-'));

/**
 * The generator wants one operation per file, so each definition of the page's file gets its own;
 * with Apollo Client 4 it refuses `@defer` (no incremental handler), so the deferred
 * `ProductAvailability` is left out (its fragment is listed with no operation using it).
 */
async function generateManifest(): Promise<{ file: string; manifest: PersistedQueryManifest }> {
  const definitions = parse(readFileSync(OPERATIONS, 'utf8')).definitions.map((definition) => print(definition));
  definitions.filter((text) => !text.includes('@defer')).forEach((text, index) => writeFileSync(join(dir, `operation-${index}.graphql`), text));
  const manifest = await generatePersistedQueryManifest({ documents: [join(dir, 'operation-*.graphql')] }, undefined);
  const file = join(dir, 'persisted-query-manifest.json');
  writeFileSync(file, JSON.stringify(manifest));
  return { file, manifest };
}

describe('Apollo Client with a manifest from Apollo’s generator', () => {
  let h: Harness;
  let manifest: PersistedQueryManifest;
  const bodies: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    const generated = await generateManifest();
    manifest = generated.manifest;
    h = await startGateway({ env: { PERSISTED_OPERATIONS_FILE: generated.file } });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // Every body the client sends, as the gateway receives it.
  const recording: typeof fetch = async (input, init) => {
    bodies.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
    return fetch(input, init);
  };

  it('lists the example page’s operations in Apollo’s manifest format', () => {
    expect(manifest.format).toBe('apollo-persisted-query-manifest');
    expect(manifest.operations.map(({ name, type }) => `${type} ${name}`).sort()).toEqual(['query Cities', 'query CitySites', 'query SearchProducts', 'subscription SiteStock']);
  });

  it('runs the page’s queries by their manifest ids, no request carrying query text', async () => {
    const client = new ApolloClient({
      cache: new InMemoryCache(),
      link: createPersistedQueryLink(generatePersistedQueryIdsFromManifest({ loadManifest: () => manifest }))
        .concat(new HttpLink({ uri: `${h.url}/graphql`, fetch: recording })),
    });
    const city = h.mock.catalog.cities[0]!;
    const cities = await client.query({ query: CitiesDocument });
    expect(cities.data?.cities.items.map((item) => item.code)).toEqual(h.mock.catalog.cities.map((one) => one.code));
    const sites = await client.query({ query: CitySitesDocument, variables: { code: city.code } });
    expect(sites.data?.city?.name).toBe(city.name);
    const products = await client.query({ query: SearchProductsDocument, variables: { first: 3 } });
    expect(products.data?.searchProducts).toHaveLength(3);

    expect(bodies).toHaveLength(3);
    for (const body of bodies) expect(body).not.toHaveProperty('query');
    const ids = manifest.operations.filter(({ type }) => type === 'query').map(({ id }) => id);
    expect(bodies.map((body) => (body.extensions as any).persistedQuery.sha256Hash).sort()).toEqual(ids.sort());
  });

  it('is refused by the gateway when the same client sends the query text instead', async () => {
    const plain = new ApolloClient({ cache: new InMemoryCache(), link: new HttpLink({ uri: `${h.url}/graphql` }) });
    await expect(plain.query({ query: CitiesDocument })).rejects.toMatchObject({ errors: [expect.objectContaining({ extensions: { code: 'PERSISTED_QUERY_ONLY' } })] });
  });
});
