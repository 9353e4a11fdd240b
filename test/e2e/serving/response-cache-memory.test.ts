/**
 * The response cache's byte budget (`RESPONSE_CACHE_MAX_BYTES`) bounds the memory its answers
 * hold, tags included: an answer of 15 products by unknown 64-character codes is about 165 bytes
 * of body and 1.1 KB of tags, which it keeps as a list, as its `Surrogate-Key` and `Cache-Tag`
 * headers and in the index a purge reads. What the cache holds is the heap after full collections
 * with the cache full, less the same once a purge has emptied it (what the first requests leave
 * behind, compiled code and the like, is in both). The budget is small, the requests many, so that
 * a cache that counted only bodies and keys would hold several times its budget.
 */
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';

const BUDGET = 4 * 1024 * 1024;
/** Enough distinct answers to fill the budget several times over, however they are counted. */
const REQUESTS = 6_000;
const AT_ONCE = 8;
const ADMIN_KEY = 'memory-test-admin-key-0001';

// One lookup's tag is `product:<code>`: 72 bytes, 15 of them an answer.
const CODES = Array.from({ length: 15 }, (_, i) => `${String.fromCharCode(65 + i)}${'x'.repeat(62)}${i % 10}`);
const QUERY = `{ ${CODES.map((code, i) => `p${i}: product(goodsCode: "${code}") { goodsCode productName }`).join(' ')} }`;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Bytes held after full collections: the JavaScript heap and the answers' buffers outside it. */
function held(): number {
  for (let i = 0; i < 3; i += 1) gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

/** GETs the query with the `i`-th Accept header: a new key each time, the same answer. */
async function ask(h: Harness, i: number): Promise<string | null> {
  const response = await fetch(`${h.url}/graphql?query=${encodeURIComponent(QUERY)}`, {
    headers: { accept: `application/graphql-response+json, application/x-probe-${i};q=0.1` },
  });
  await response.arrayBuffer();
  return response.headers.get('x-cache');
}

/** Purges every answer (and the codes' data entries): what the cache held goes. */
async function purgeAll(h: Harness): Promise<number> {
  const response = await fetch(`${h.url}/admin/purge`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': ADMIN_KEY },
    body: JSON.stringify({ tags: CODES.map((code) => `product:${code}`) }),
  });
  return ((await response.json()) as { purged: number }).purged;
}

describe('the response cache under tag-heavy answers', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('holds no more than twice its byte budget after a full collection, tags, tag headers and index included', async () => {
    h = await startGateway({ env: { RESPONSE_CACHE_MAX_BYTES: String(BUDGET), ADMIN_API_KEYS: ADMIN_KEY } });
    let misses = 0;
    for (let i = 0; i < REQUESTS; i += AT_ONCE) {
      const batch = await Promise.all(Array.from({ length: AT_ONCE }, (_, j) => ask(h!, i + j)));
      misses += batch.filter((cache) => cache === 'miss').length;
    }
    expect(misses).toBe(REQUESTS);
    expect(await ask(h, REQUESTS - 1)).toBe('hit'); // stored, and the latest kept
    h.logs.length = 0; // the harness keeps every log line; the gateway does not
    const full = held();
    expect(await purgeAll(h)).toBeGreaterThan(100);
    h.logs.length = 0;
    const cached = full - held();

    const says = `${(cached / 1048576).toFixed(1)} MiB held for a budget of ${BUDGET / 1048576} MiB`;
    expect(cached, says).toBeLessThanOrEqual(2 * BUDGET);
    expect(cached, says).toBeGreaterThan(BUDGET / 4); // it was measured full
  });
});
