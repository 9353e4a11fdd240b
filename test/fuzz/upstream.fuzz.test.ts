/**
 * The upstream side of the gateway under generated answers, from valid to hostile, for each of
 * the upstream's seven operations, served by a raw `node:http` stand-in (the token endpoint still
 * works: it passes on to the mock), through the real gateway and real GraphQL over HTTP.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockUpstream, type MockUpstream } from '../../src/mock-upstream/index.js';
import { callsByPath, startGateway, type Harness } from '../helpers/gateway.js';
import { dataProblems, errorCodes, preview, shapeProblems } from './answer-checks.js';
import { fuzzParameters, heapAfterGc, MIB } from './settings.js';
import { upstreamAnswer, type GeneratedAnswer, type ResultShape } from './upstream-answers.js';
import { startUpstreamStandIn, type UpstreamStandIn } from './upstream-stand-in.js';

/** A query that reaches the upstream through exactly one path. */
interface Target {
  path: string;
  shape: ResultShape;
  query: string;
  /** Another path answered first with HTTP 404 (how /api/sites/list is reached). */
  missing?: string;
}

const SITE_FIELDS = 'id code name state enabled openTime closeTime address addressExt lat lng images siteType gradeType isOpen(at: "12:00")';
const LANE_FIELDS = 'goodsCode productName productPic stock';
const PRODUCT_FIELDS = 'id goodsCode skuCode productName ipId ipName costPrice guidePrice orderPic';
const PAGE = 'total page pageSize hasNextPage';

const TARGETS: Target[] = [
  { path: '/api/city/list', shape: 'cities', query: `{ cities(page: 1, pageSize: 10) { ${PAGE} items { id cityId code name } } }` },
  { path: '/api/city/list', shape: 'cities', query: '{ city(code: "SH") { id cityId code name } }' },
  { path: '/api/site/list', shape: 'plainSites', query: `{ sites(page: 1, pageSize: 10) { ${PAGE} items { ${SITE_FIELDS} } } }` },
  { path: '/api/sites/list', shape: 'plainSites', missing: '/api/site/list', query: `{ sites(page: 2, pageSize: 5) { ${PAGE} items { ${SITE_FIELDS} } } }` },
  { path: '/api/site/list-with-points', shape: 'sitesWithPoints', query: `{ sites(page: 1, pageSize: 10) { ${PAGE} items { code name city { id code name } } } }` },
  {
    path: '/api/site/list-with-points', shape: 'sitesWithPoints',
    query: `{ sitesNear(lat: 31.2, lng: 121.4, radiusKm: 1000, first: 5) { distanceKm site { ${SITE_FIELDS} points { id code name gradeType imei cargoLanes { ${LANE_FIELDS} } } stockSummary { lanes emptyLanes totalStock } } } }`,
  },
  { path: '/api/site/list-with-points', shape: 'sitesWithPoints', query: `{ sites(cityCode: "SH", pageSize: 5) { ${PAGE} items { code enabled } } }` },
  {
    path: '/api/site/detail', shape: 'siteDetail',
    query: `{ site(code: "S000001") { ${SITE_FIELDS} points { id code name gradeType imei cargoLanes { ${LANE_FIELDS} } } stockSummary { lanes emptyLanes totalStock } } }`,
  },
  { path: '/api/products/list', shape: 'products', query: `{ products(page: 1, pageSize: 10) { ${PAGE} items { ${PRODUCT_FIELDS} } } }` },
  { path: '/api/products/list', shape: 'products', query: `{ searchProducts(first: 10) { ${PRODUCT_FIELDS} } }` },
  { path: '/api/product/detail', shape: 'productDetail', query: `{ product(goodsCode: "G00001") { ${PRODUCT_FIELDS} } }` },
];

/** Retries on an answer would hide defects, and their backoff is real time; the breaker probes at once. */
const GATEWAY_ENV = {
  UPSTREAM_RETRIES: '0',
  UPSTREAM_BREAKER_COOLDOWN_MS: '1',
  UPSTREAM_TIMEOUT_MS: '3000',
  REQUEST_TIMEOUT_MS: '5000',
  LOG_LEVEL: 'warn',
};

/** Past the catalog index's pause after a failed build (1 s), well within every TTL (30 s and more). */
const PAST_INDEX_PAUSE_MS = 2000;

let mock: MockUpstream;
let standIn: UpstreamStandIn;
/** The answer to each target's query from a gateway straight in front of the mock. */
const truth = new Map<string, unknown>();

beforeAll(async () => {
  mock = await createMockUpstream();
  standIn = await startUpstreamStandIn(mock);
  for (const target of new Set(TARGETS.map((t) => t.query))) {
    const h = await startGateway({ sharedMock: mock, env: GATEWAY_ENV });
    mock.resetCounters();
    const answer = await h.query(target);
    await h.close();
    expect(answer.errors, target).toBeUndefined();
    truth.set(target, answer.data);
  }
}, 60_000);

afterAll(async () => {
  await standIn?.close();
  await mock?.close();
});

describe('the gateway under generated upstream answers', () => {
  it('targets reach the upstream through the one path each names', async () => {
    for (const target of TARGETS) {
      const h = await gatewayOverStandIn();
      mock.resetCounters();
      await h.query(target.query);
      await h.close();
      expect(Object.keys(callsByPath(mock)), target.query).toEqual([target.path === '/api/sites/list' ? '/api/site/list' : target.path]);
    }
  });

  it('answers every generated upstream answer with coded, well-typed GraphQL, and stores nothing malformed', async () => {
    const heapBefore = heapAfterGc();
    const cases = fc.tuple(fc.constantFrom(...TARGETS), fc.nat()).chain(([target]) =>
      upstreamAnswer(target.shape, target.path).map((generated) => ({ target, generated })));
    await fc.assert(
      fc.asyncProperty(cases, async ({ target, generated }) => {
        const h = await gatewayOverStandIn();
        try {
          await checkCase(h, target, generated);
        } finally {
          standIn.script(target.path, null);
          if (target.missing) standIn.script(target.missing, null);
          await h.close();
        }
      }),
      fuzzParameters(20),
    );
    // Every case's gateway is gone: what stays is what the process keeps for good.
    expect((heapAfterGc() - heapBefore) / MIB).toBeLessThan(100);
  });
});

async function gatewayOverStandIn(): Promise<Harness> {
  return startGateway({ sharedMock: mock, env: GATEWAY_ENV, upstream: { baseUrl: standIn.url, tokenUrl: standIn.tokenUrl } });
}

// Private: one generated answer: the gateway's answer to it, then its answer once the upstream is
// well again (nothing of a malformed answer may have been kept).
async function checkCase(h: Harness, target: Target, { answer, mustReject }: GeneratedAnswer): Promise<void> {
  if (target.missing) standIn.script(target.missing, { status: 404, contentType: 'text/plain', body: 'Not Found', cut: false });
  standIn.script(target.path, answer);
  const first = await ask(h, target.query);
  const problems = [...answerProblems(target.query, first)];
  if (errorCodes(first.body).includes('INTERNAL_SERVER_ERROR')) problems.push('an upstream answer became INTERNAL_SERVER_ERROR (unclassified)');
  if (mustReject && errorCodes(first.body).length === 0) problems.push(`a malformed upstream answer was served as data: ${preview(first.body)}`);
  expect(problems, `first answer (malformed: ${mustReject}) ${preview(first.body)}`).toEqual([]);

  standIn.script(target.path, null);
  if (target.missing) standIn.script(target.missing, null);
  const expected = truth.get(target.query);
  // A well-formed answer is data the upstream gave: keeping it for its TTL is what a cache is
  // for, even when the first GraphQL answer erred for another reason (a later page failing).
  const replayAllowed = !mustReject;
  // Real-time states (a token backoff, a circuit's probe) may take a moment; cached data waits
  // on the test's clock, which does not move here, so a kept entry shows however long we wait.
  let second = first;
  for (let attempt = 0; attempt < 8; attempt += 1) {
    h.clock.advance(PAST_INDEX_PAUSE_MS);
    second = await ask(h, target.query);
    expect(answerProblems(target.query, second), preview(second.body)).toEqual([]);
    if (sameData(second.body.data, expected) && errorCodes(second.body).length === 0) return;
    if (replayAllowed) return;
    if (!errorCodes(second.body).some((c) => c.startsWith('UPSTREAM_'))) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  expect.fail(`after the upstream recovered from a malformed answer, the gateway still answers ${preview(second.body)}; expected the mock's data ${preview(expected)}`);
}

interface Reply {
  status: number;
  body: any;
}

async function ask(h: Harness, query: string): Promise<Reply> {
  const response = await fetch(`${h.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify({ query }),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: answerProblems says so
  }
  return { status: response.status, body };
}

function answerProblems(query: string, reply: Reply): string[] {
  const problems = reply.status >= 500 ? [`HTTP ${reply.status}`] : [];
  const shape = shapeProblems(reply.body);
  if (shape.length > 0) return [...problems, ...shape];
  return [...problems, ...dataProblems(query, reply.body.data)];
}

function sameData(a: unknown, b: unknown): boolean {
  return JSON.stringify(strip(a)) === JSON.stringify(strip(b));
}

// Private: what two answers must share: data and error codes (messages and the data's age may differ).
function strip(value: any): unknown {
  if (value === null || typeof value !== 'object' || !('data' in value || 'errors' in value)) return value;
  return { data: value.data, codes: errorCodes(value) };
}
