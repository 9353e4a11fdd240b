/**
 * MAX_QUERY_BYTES and MAX_VARIABLES_BYTES: what a client may make the gateway parse, key and
 * hold, apart from the body limit; and yoga's parser caches bounded in bytes.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { createParserCaches } from '../../../src/graph/parser-caches.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';

const SMALL = '{ cities(pageSize: 1) { total } }';

async function post(h: Harness, payload: unknown) {
  const response = await fetch(`${h.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify(payload),
  });
  return { status: response.status, body: (await response.json()) as any };
}

// Private: a full collection, so heap figures compare live data only.
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

describe('request parameter limits', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('refuses a query longer than MAX_QUERY_BYTES with 413 QUERY_TOO_LARGE, at no upstream cost', async () => {
    h = await startGateway({ env: { MAX_QUERY_BYTES: '2048' } });
    const calls = h.mock.calls();
    const long = await post(h, { query: `${SMALL}\n# ${'x'.repeat(2100)}` });
    expect(long.status).toBe(413);
    expect(long.body.errors[0].extensions.code).toBe('QUERY_TOO_LARGE');
    // Multi-byte characters count as their UTF-8 bytes.
    const wide = await post(h, { query: `${SMALL}\n# ${'城'.repeat(700)}` });
    expect(wide.body.errors[0].extensions.code).toBe('QUERY_TOO_LARGE');
    expect(h.mock.calls()).toBe(calls);
    expect((await post(h, { query: `${SMALL}\n# ${'x'.repeat(1900)}` })).status).toBe(200);
  });

  it('refuses variables larger than MAX_VARIABLES_BYTES with 413 VARIABLES_TOO_LARGE, also by GET', async () => {
    h = await startGateway({ env: { MAX_VARIABLES_BYTES: '1024' } });
    const calls = h.mock.calls();
    const junk = { junk: 'x'.repeat(1100) };
    const posted = await post(h, { query: SMALL, variables: junk });
    expect(posted.status).toBe(413);
    expect(posted.body.errors[0].extensions.code).toBe('VARIABLES_TOO_LARGE');
    const search = new URLSearchParams({ query: SMALL, variables: JSON.stringify(junk) });
    const got = await fetch(`${h.url}/graphql?${search}`, { headers: { accept: 'application/graphql-response+json' } });
    expect(got.status).toBe(413);
    expect(h.mock.calls()).toBe(calls);
  });

  it('holds no memory for 40 requests carrying 450 KB of junk variables each', async () => {
    h = await startGateway();
    await post(h, { query: SMALL });
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 40; i += 1) {
      const answer = await post(h, { query: SMALL, variables: { junk: `${i}`.padEnd(450_000, 'x') } });
      expect(answer.status).toBe(413);
    }
    collectGarbage();
    // Before the limit the response cache kept every key whole: about 2 MB a request.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(16 * 1024 * 1024);
  }, 60_000); // 18 MB of bodies: seconds on a busy machine
});

describe("yoga's parser caches", () => {
  it('count what each document weighs, so long texts cannot fill memory', () => {
    const { documentCache, errorCache } = createParserCaches({ documentBytes: 1_000_000, errorBytes: 100_000 });
    const text = `{ cities { total } } # ${'x'.repeat(2000)}`;
    for (let i = 0; i < 50; i += 1) documentCache.set(`${text}${i}`, { kind: 'Document', definitions: [] } as never);
    expect(documentCache.calculatedSize).toBeLessThanOrEqual(1_000_000);
    expect(documentCache.size).toBeLessThan(50);
    for (let i = 0; i < 50; i += 1) errorCache.set(`${text}${i}`, new Error('x'));
    expect(errorCache.calculatedSize).toBeLessThanOrEqual(100_000);
    expect(errorCache.size).toBeLessThan(50);
  });
});
