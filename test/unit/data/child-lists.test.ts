/**
 * The third shape of the operation table, a list by a parent's code (upstream/operations.ts
 * `childList`), called the same way as the others: through the request's loaders, the shared
 * cache and the api, each call charged, its records read as declared (normalise.ts
 * `recordReader`). The upstream offers no such operation yet, so a raw server stands in for it,
 * with its items as the upstream's habits may send them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/base/clock.js';
import { createLruCache } from '../../../src/cache/lru-cache.js';
import { createLoaders } from '../../../src/data/loaders.js';
import { createSources, type Sources } from '../../../src/data/sources.js';
import { createUpstreamApi } from '../../../src/upstream/api.js';
import { createUpstreamClient } from '../../../src/upstream/http/client.js';
import { recordReader } from '../../../src/upstream/normalise.js';
import { childList } from '../../../src/upstream/operations.js';
import { sendJson, startRawServer, type RawServer } from '../../helpers/raw-server.js';
import { startUpstream, TEST_TIMEOUT_MS, type StartedUpstream } from '../../helpers/upstream.js';

const reviews = childList('reviews', '/api/site/reviews', 'siteCode', { freshness: 'sites', read: recordReader({ code: 'code', rating: 'int' }) });

/** What the stand-in answers for each site code: `{ items, total }`, a bare array, or "no such site". */
const ANSWERS: Record<string, unknown> = {
  S1: { items: [{ code: 'R1', rating: 5 }, { rating: 2 }, { code: 'R2', rating: '4' }, { code: 'R4', rating: 2 ** 40 }], total: 4 },
  S2: [{ code: 'R3', rating: 1 }],
  S3: null,
};

let upstream: StartedUpstream;
let standIn: RawServer;
let sources: Sources;

beforeAll(async () => {
  upstream = await startUpstream();
  standIn = await startRawServer((req, res) => {
    const result = ANSWERS[new URL(req.url, 'http://x').searchParams.get('siteCode') ?? ''];
    sendJson(res, 200, { code: 0, msg: 'ok', timestamp: 0, result });
  });
  const client = createUpstreamClient({ baseUrl: standIn.url, timeoutMs: TEST_TIMEOUT_MS, tokens: upstream.tokens, logger: upstream.logger, clock: systemClock });
  const cache = createLruCache({ maxEntries: 100, clock: systemClock });
  sources = createSources(createUpstreamApi(client), cache, { citiesMs: 60_000, sitesMs: 60_000, productsMs: 60_000 }, systemClock);
});

afterAll(async () => {
  await standIn.close();
  await upstream.close();
});

describe('a list by a parent code', () => {
  it('loads each parent\'s records by its code, once per code, charged and tagged, dropping items without a code', async () => {
    let charged = 0;
    const tags: string[] = [];
    const loaders = createLoaders(sources, { chargeUpstreamCall: () => void (charged += 1), tag: (kind) => void tags.push(kind) });
    const loaded = await loaders.children(reviews).loadMany(['S1', 'S2', 'S3', 'S1']);
    expect(loaded).toEqual([
      [{ code: 'R1', rating: 5 }, { code: 'R2', rating: 4 }, { code: 'R4', rating: null, invalid: ['rating'] }],
      [{ code: 'R3', rating: 1 }],
      [],
      [{ code: 'R1', rating: 5 }, { code: 'R2', rating: 4 }, { code: 'R4', rating: null, invalid: ['rating'] }],
    ]);
    expect(standIn.requests.map((req) => req.url).sort()).toEqual(
      ['/api/site/reviews?siteCode=S1', '/api/site/reviews?siteCode=S2', '/api/site/reviews?siteCode=S3'],
    );
    expect(charged).toBe(3);
    expect(tags).toContain('sites');
  });

  it('serves a parent\'s records from the shared cache to the next request, with no upstream call', async () => {
    const before = standIn.requests.length;
    expect(await createLoaders(sources, {}).children(reviews).load('S2')).toEqual([{ code: 'R3', rating: 1 }]);
    expect(standIn.requests.length).toBe(before);
  });
});
