/**
 * No answer of the lean path differs from yoga's (issue 25): the graph contract's queries and the
 * refusal table's requests go to a gateway with the lean path and to one without (side-by-side.ts),
 * which must answer each with the same status, headers, body bytes and log line.
 *
 * The queries come from contract-queries.ts and the refusals from refusals.ts, the lists
 * contract.test.ts and doors.test.ts send: a query or a refusal added there is compared here too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Catalog } from '../../../src/mock-upstream/index.js';
import { CONTRACT, CONTRACT_CATALOG, type Operation } from '../graph/contract-queries.js';
import { CITIES, ENVS, HTTP_KEY, removeListFile, requestOf, ROWS, type Row } from '../protection/refusals.js';
import { jsonPost, sameOnBoth, startPair, type Pair } from './side-by-side.js';

afterAll(removeListFile);

describe("the contract's queries, on the lean path and on yoga", () => {
  let pair: Pair;
  beforeAll(async () => {
    pair = await startPair({}, CONTRACT_CATALOG);
  });
  afterAll(() => pair.close());

  // The data of each query answered so far: `nodes` asks for the ids an earlier one answered.
  const data: Record<string, any> = {};
  const queries = Object.entries(CONTRACT) as Array<[string, (catalog: Catalog, data: Record<string, any>) => Operation]>;
  it.each(queries)('answers %s the same, executed and then stored', async (name, make) => {
    const request = jsonPost(make(pair.mock.catalog, data));
    const first = await sameOnBoth(pair, request);
    const again = await sameOnBoth(pair, request);
    const answer = JSON.parse(first.lean.body.toString());
    // Both compared: the first answer executed on each side, the second stored (unless it has errors, never stored).
    expect([first.lean.headers['x-cache'], again.lean.headers['x-cache']]).toEqual(['miss', answer.errors ? 'miss' : 'hit']);
    data[name] = answer.data;
  });
});

describe("the contract's queries executed every time (response cache off), on the lean path and on yoga", () => {
  let pair: Pair;
  beforeAll(async () => {
    pair = await startPair({ RESPONSE_CACHE_MAX_BYTES: '0' }, CONTRACT_CATALOG);
  });
  afterAll(() => pair.close());

  const data: Record<string, any> = {};
  const queries = Object.entries(CONTRACT) as Array<[string, (catalog: Catalog, data: Record<string, any>) => Operation]>;
  // The first run is graphql-js's, the next ones the compiled query's: the lean path runs both
  // without yoga's hooks (graph/execution/run.ts), yoga's path through them.
  it.each(queries)('answers %s the same, interpreted and then compiled', async (name, make) => {
    const request = jsonPost(make(pair.mock.catalog, data));
    const runs = [await sameOnBoth(pair, request), await sameOnBoth(pair, request), await sameOnBoth(pair, request)];
    expect(runs.map((run) => run.lean.headers['x-cache'])).toEqual([undefined, undefined, undefined]);
    data[name] = JSON.parse(runs[0]!.lean.body.toString()).data;
  });
});

describe('compressed answers, on the lean path and on yoga', () => {
  let pair: Pair;
  beforeAll(async () => {
    pair = await startPair();
  });
  afterAll(() => pair.close());

  const PAGE = { query: '{ sites(pageSize: 20) { items { code name address points { code name } } } }' };
  // The first coding's answer is executed, then stored; the others are the stored answer's forms.
  it.each(['br', 'gzip', 'zstd', 'identity', 'gzip;q=0.5, br;q=0.2'])('sends the same bytes and headers for Accept-Encoding: %s, then again from the store', async (coding) => {
    const request = jsonPost(PAGE, { 'accept-encoding': coding });
    const first = await sameOnBoth(pair, request);
    const again = await sameOnBoth(pair, request);
    expect([first.lean.headers['x-cache'], again.lean.headers['x-cache']]).toEqual([coding === 'br' ? 'miss' : 'hit', 'hit']);
    expect(again.lean.headers.vary).toBe('Accept-Encoding');
    expect(first.lean.headers['content-encoding']).toBe({ identity: undefined, 'gzip;q=0.5, br;q=0.2': 'gzip' }[coding] ?? (coding === 'identity' ? undefined : coding));
  });
});

// One pair per environment: the rows of the table that share one are sent to the same two gateways.
const byEnv = new Map<string, Row[]>();
for (const row of ROWS) byEnv.set(row.env ?? 'main', [...(byEnv.get(row.env ?? 'main') ?? []), row]);

for (const [env, rows] of byEnv) {
  describe(`the refusal table's rows in the ${env} environment, on the lean path and on yoga`, () => {
    let pair: Pair;
    beforeAll(async () => {
      pair = await startPair(ENVS[env]);
    });
    afterAll(() => pair.close());

    it.each(rows.map((row) => [row.name, row] as const))('refuses %s the same', async (_name, row) => {
      const key = row.key === undefined ? HTTP_KEY : row.key;
      for (let i = 0; i < (row.spend?.http ?? 0); i += 1) await sameOnBoth(pair, requestOf({ ...row, params: { query: CITIES } }, key));
      const { lean } = await sameOnBoth(pair, requestOf(row, key));
      // Still a refusal: two gateways answering it alike but wrongly would pass the comparison.
      const codes = (JSON.parse(lean.body.toString()) as { errors?: Array<{ extensions?: { code?: unknown } }> }).errors?.map((error) => error.extensions?.code);
      expect([lean.status, codes]).toEqual([row.status, [row.code]]);
    });
  });
}
