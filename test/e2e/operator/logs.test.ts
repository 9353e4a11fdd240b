import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness, type ManualClock } from '../../helpers/gateway.js';
import { get, logEntries, metric, post, requestLines, scrape } from '../../helpers/http.js';
import { subscribeWs } from '../../helpers/websocket.js';

const SITE = 'query SiteWithLanes($c: String!) { site(code: $c) { name points { cargoLanes { product { productName } } } } }';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('structured logs and request ids', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('writes one line per GraphQL request with operation, status, duration, upstream calls, cache hits and request id', async () => {
    // Whole answers not reused here: the second request must run to show its data-cache hits.
    // The gateway's clock stands still unless moved: each time the mock reads its own (as a call
    // arrives), it moves the gateway's 5 ms. A duration is then exactly what the clock moved.
    const moved: { clock?: ManualClock; reads: number } = { reads: 0 };
    const mockNow = () => ((moved.reads += 1), moved.clock?.advance(5), Date.now());
    h = await startGateway({ env: { RESPONSE_CACHE_MAX_BYTES: '0' }, mock: { now: mockNow } });
    moved.clock = h.clock;
    const site = h.mock.catalog.sites[0]!;
    const readsBefore = moved.reads;
    const cold = await post(h, SITE, { variables: { c: site.code }, headers: { 'x-request-id': 'cold-1' } });
    const coldReads = moved.reads - readsBefore;
    const warm = await post(h, SITE, { variables: { c: site.code }, headers: { 'x-request-id': 'warm-2' } });
    expect([cold.status, warm.status]).toEqual([200, 200]);

    const lines = requestLines(h);
    expect(lines.map((line) => line.requestId)).toEqual(['cold-1', 'warm-2']);
    const [first, second] = lines;
    expect(first).toMatchObject({ level: 30, operation: 'SiteWithLanes', status: 200, outcome: 'ok', errorCodes: [] });
    expect(first.durationMs).toBeGreaterThan(0);
    expect(first.durationMs).toBe(5 * coldReads); // measured on the gateway's clock
    expect(second.durationMs).toBe(0); // no upstream call: the clock did not move
    expect(first.upstreamCalls).toBe(h.mock.calls());
    expect(first.upstreamCalls).toBeGreaterThan(1);
    expect(first.cacheMisses).toBeGreaterThan(0);
    expect(second).toMatchObject({ upstreamCalls: 0, cacheMisses: 0 });
    expect(second.cacheHits).toBeGreaterThan(0);
  });

  it('measures a request\'s duration on the gateway\'s clock through every door: a POST, a GET and WebSocket', async () => {
    // As above: each read of the mock's clock moves the gateway's 5 ms, and nothing else moves it.
    const moved: { clock?: ManualClock; reads: number } = { reads: 0 };
    const mockNow = () => ((moved.reads += 1), moved.clock?.advance(5), Date.now());
    h = await startGateway({ env: { RESPONSE_CACHE_MAX_BYTES: '0' }, mock: { now: mockNow } });
    moved.clock = h.clock;
    const readsOf = async (send: () => Promise<unknown>) => {
      const before = moved.reads;
      await send();
      return moved.reads - before;
    };
    // A site of its own for each door: each request reaches the upstream.
    const [a, b, c] = h.mock.catalog.sites.map((site) => site.code);
    const posted = await readsOf(() => post(h, SITE, { variables: { c: a }, headers: { 'x-request-id': 'post' } }));
    const query = `query=${encodeURIComponent(SITE)}&variables=${encodeURIComponent(JSON.stringify({ c: b }))}`;
    const got = await readsOf(() => get(h, `/graphql?${query}`, { accept: 'application/graphql-response+json', 'x-request-id': 'get' }));
    const socket = await readsOf(async () => {
      const subscriber = subscribeWs(h.wsUrl, SITE, { c });
      expect(await subscriber.ended).toBe('complete');
      await subscriber.close();
    });
    await expect.poll(() => requestLines(h).length).toBe(3);

    const lines = requestLines(h);
    const line = (match: (line: any) => boolean) => lines.find(match)!;
    expect([posted, got, socket].every((reads) => reads > 0)).toBe(true);
    expect(line((l) => l.requestId === 'post').durationMs).toBe(5 * posted);
    expect(line((l) => l.requestId === 'get').durationMs).toBe(5 * got);
    expect(line((l) => l.transport === 'websocket').durationMs).toBe(5 * socket);
  });

  it('keeps REQUEST_LOG_SAMPLE_PERCENT of the successful lines and every failed one, and counts all', async () => {
    h = await startGateway({ env: { REQUEST_LOG_SAMPLE_PERCENT: '25' } });
    for (let i = 0; i < 8; i++) expect((await post(h, '{ cities { total } }', { headers: { 'x-request-id': `ok-${i}` } })).status).toBe(200);
    expect((await post(h, '{ site(code: 7) { name } }', { headers: { 'x-request-id': 'bad-1' } })).status).toBe(400);
    expect((await post(h, '{ nope }', { headers: { 'x-request-id': 'bad-2' } })).status).toBe(400);
    // A quarter, kept exactly: the 4th and the 8th; both failures.
    expect(requestLines(h).map((line) => line.requestId)).toEqual(['ok-3', 'ok-7', 'bad-1', 'bad-2']);
    const text = await scrape(h);
    expect(metric(text, 'gateway_graphql_requests_total', { operation: 'anonymous', outcome: 'ok' })).toBe(8);
  });

  it('writes the line of every request slower than REQUEST_LOG_SLOW_MS, however few it samples', async () => {
    h = await startGateway({ env: { REQUEST_LOG_SAMPLE_PERCENT: '0', REQUEST_LOG_SLOW_MS: '0' } });
    for (let i = 0; i < 3; i++) await post(h, '{ cities { total } }', { headers: { 'x-request-id': `slow-${i}` } });
    expect(requestLines(h).map((line) => line.requestId)).toEqual(['slow-0', 'slow-1', 'slow-2']);
  });

  it('says when an answer came whole from the response cache', async () => {
    h = await startGateway();
    const site = h.mock.catalog.sites[0]!;
    await post(h, SITE, { variables: { c: site.code } });
    await post(h, SITE, { variables: { c: site.code } });
    const [first, second] = requestLines(h);
    expect(first).toMatchObject({ operation: 'SiteWithLanes', responseCache: 'miss' });
    expect(second).toMatchObject({ operation: 'SiteWithLanes', responseCache: 'hit', upstreamCalls: 0, cacheHits: 0 });
  });

  it('reports the error codes of a failed request, and warns once per upstream failure with its request id', async () => {
    h = await startGateway({ env: { UPSTREAM_RETRIES: '1' } });
    h.mock.fault('/api/site/detail', 'http503');
    await post(h, SITE, { variables: { c: 'S000001' }, headers: { 'x-request-id': 'failing-1' } });

    const [line] = requestLines(h);
    expect(line).toMatchObject({ requestId: 'failing-1', outcome: 'error', upstreamCalls: 2, errorCodes: ['UPSTREAM_UNAVAILABLE'] });
    const warnings = logEntries(h).filter((entry) => entry.level === 40 && entry.path === '/api/site/detail');
    expect(warnings).toHaveLength(2); // the retried attempt, then the call's final failure
    for (const warning of warnings) expect(warning).toMatchObject({ requestId: 'failing-1', outcome: 'http_503', status: 503 });
  });

  it('echoes a safe x-request-id, and replaces a missing or unsafe one with a UUID, on every response', async () => {
    h = await startGateway({ env: { GATEWAY_API_KEYS: 'request-id-test-key-0123' } });
    const given = await post(h, '{ __typename }', { headers: { 'x-request-id': 'abc-123_x.y:z' } });
    expect(given.headers.get('x-request-id')).toBe('abc-123_x.y:z');
    expect(requestLines(h).at(-1).requestId).toBe('abc-123_x.y:z');

    for (const unsafe of ['has spaces', 'a'.repeat(65), 'quote"s', '']) {
      const answer = await post(h, '{ __typename }', { headers: { 'x-request-id': unsafe } });
      expect(answer.headers.get('x-request-id')).toMatch(UUID);
      expect(requestLines(h).at(-1).requestId).toBe(answer.headers.get('x-request-id'));
    }
    const generated = await get(h, '/healthz');
    expect(generated.headers.get('x-request-id')).toMatch(UUID);
    expect((await get(h, '/readyz', { 'x-request-id': 'probe-7' })).headers.get('x-request-id')).toBe('probe-7');
    expect((await get(h, '/metrics', { 'x-request-id': 'scrape-8' })).headers.get('x-request-id')).toBe('scrape-8');
  });

  it('writes no request line for the GraphiQL page, but gives it a request id', async () => {
    h = await startGateway();
    const page = await get(h, '/graphql', { accept: 'text/html', 'x-request-id': 'page-1' });
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('x-request-id')).toBe('page-1');
    await post(h, '{ __typename }');
    expect(requestLines(h)).toHaveLength(1);
  });

  it('puts the request id on a request answered 413 before the gateway read it', async () => {
    h = await startGateway({ env: { MAX_REQUEST_BODY_BYTES: '1024' } });
    const big = await post(h, `{ __typename }${' '.repeat(2000)}`, { headers: { 'x-request-id': 'too-big-1' } });
    expect(big.status).toBe(413);
    expect(big.headers.get('x-request-id')).toBe('too-big-1');
  });

  it('never logs the client secret, an upstream token or a client key, even at debug level and whatever fails', async () => {
    const secret = 'canary-client-secret-5b1c0e';
    const key = 'canary-api-key-0a9f33d1c7';
    h = await startGateway({
      mock: { clientSecret: secret, tokenLifetimeS: 7200 },
      env: { GATEWAY_API_KEYS: key, UPSTREAM_RETRIES: '1', LOG_LEVEL: 'debug' },
    });
    const auth = { authorization: `Bearer ${key}` };
    const site = h.mock.catalog.sites[0]!;
    await post(h, SITE, { variables: { c: site.code }, headers: auth });
    h.mock.expireAllTokens(); // a token timeout, a refresh, a retry
    await post(h, '{ cities { total } }', { headers: { ...auth, 'x-request-id': 'expired' } });
    h.mock.fault('/api/products/list', { envelope: { code: 500, msg: `echoing ${h.mock.issuedTokens().at(-1)}` } });
    await post(h, '{ products { total } }', { headers: { 'x-api-key': key } });
    h.mock.fault('/api/site/list', 'http503');
    await post(h, '{ sites { total } }', { headers: auth });
    await post(h, '{ cities { total } }', { headers: { authorization: `Bearer ${key}-wrong` } });
    h.mock.expireAllTokens();
    h.mock.fault('/oauth/token', 'http503');
    const failed = await post(h, SITE, { variables: { c: h.mock.catalog.sites[3]!.code }, headers: auth });
    expect(failed.body.errors[0].extensions.code).toBe('UPSTREAM_UNAVAILABLE');

    const logs = h.logs.join('');
    expect(logs).toContain('"level":20'); // debug lines were written
    expect(h.mock.issuedTokens().length).toBeGreaterThanOrEqual(2);
    const basic = Buffer.from(`${h.mock.clientId}:${secret}`).toString('base64');
    for (const canary of [secret, basic, key, ...h.mock.issuedTokens()]) expect(logs).not.toContain(canary);
  });
});
