/**
 * Persisted documents with Relay's own tools (docs "Persisted documents"): relay-compiler, run
 * in the test on a query against the gateway's schema with `persistConfig`, writes the Relay map
 * (md5 ids) and the query's artifact; the gateway is given the map, detected as Relay's, and
 * relay-runtime fetches the query with the network layer Relay documents for persisted queries
 * (`doc_id` and variables, no text).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Environment, fetchQuery, Network, RecordSource, Store, type ConcreteRequest, type RequestParameters, type Variables } from 'relay-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';

const ROOT = new URL('../../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'vending-graph-relay-'));
const CITIES = 'query CitiesQuery($size: Int!) { cities(pageSize: $size) { items { id code name } } }';

/** relay-compiler's map and the query's artifact, compiled from `CITIES` against the gateway's schema. */
async function compile(): Promise<{ map: string; artifact: ConcreteRequest }> {
  mkdirSync(join(dir, 'src'));
  copyFileSync(join(ROOT, 'schema.graphql'), join(dir, 'schema.graphql'));
  writeFileSync(join(dir, 'src', 'CitiesQuery.js'), `graphql\`${CITIES}\`;\n`);
  // The map's file must exist before relay-compiler writes it.
  writeFileSync(join(dir, 'persisted.json'), '{}');
  const config = { src: './src', schema: './schema.graphql', language: 'javascript', persistConfig: { file: './persisted.json', algorithm: 'MD5' } };
  writeFileSync(join(dir, 'relay.config.json'), JSON.stringify(config));
  execFileSync(join(ROOT, 'node_modules/relay-compiler/cli.js'), [], { cwd: dir, stdio: 'pipe' });
  // The artifact is an ES module (`export default node`).
  const artifact = ((await import(pathToFileURL(join(dir, 'src', '__generated__', 'CitiesQuery.graphql.js')).href)) as { default: ConcreteRequest }).default;
  return { map: join(dir, 'persisted.json'), artifact };
}

describe('relay-runtime with a map from relay-compiler', () => {
  let h: Harness;
  let artifact: ConcreteRequest;
  let map: Record<string, string>;
  const bodies: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    const compiled = await compile();
    artifact = compiled.artifact;
    map = JSON.parse(readFileSync(compiled.map, 'utf8')) as Record<string, string>;
    h = await startGateway({ env: { PERSISTED_OPERATIONS_FILE: compiled.map } });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // Relay's persisted-queries network layer, as its documentation writes it.
  async function fetchFn(params: RequestParameters, variables: Variables) {
    const body = { doc_id: params.id, variables };
    bodies.push(body);
    const response = await fetch(`${h.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return response.json();
  }

  it('writes a map of md5 ids, which the gateway reads as Relay’s', async () => {
    expect(Object.keys(map)).toEqual([expect.stringMatching(/^[0-9a-f]{32}$/)]);
    // The format detected, as a reload of the same file reports it.
    expect(await h.gateway.reloadPersisted()).toEqual({ reloaded: true, operations: 1, format: 'relay' });
    expect(artifact.params.id).toBe(Object.keys(map)[0]);
    expect(artifact.params.text).toBeNull();
  });

  it('fetches the query by doc_id alone, and reads it from the Relay store', async () => {
    const environment = new Environment({ network: Network.create(fetchFn), store: new Store(new RecordSource()) });
    const data = await fetchQuery(environment, artifact, { size: 2 }).toPromise() as { cities: { items: Array<{ code: string }> } };
    expect(data.cities.items.map((item) => item.code)).toEqual(h.mock.catalog.cities.slice(0, 2).map((city) => city.code));
    expect(bodies).toEqual([{ doc_id: artifact.params.id, variables: { size: 2 } }]);
  });
});
