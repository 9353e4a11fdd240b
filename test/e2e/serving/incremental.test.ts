/**
 * Incremental delivery over raw HTTP (multipart/mixed and SSE), and how the rest of the gateway
 * treats an answer in parts as one operation: the response cache, the upstream budget (estimate
 * and hard stop), the request deadline, error masking and the request log.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { callsByPath, type Harness } from '../../helpers/gateway.js';
import { requestLines } from '../../helpers/http.js';
import { startHeldGateway, type HeldGateway } from '../../helpers/held-upstream.js';
import { SITE_DEFERRED, SITE_PLAIN } from './incremental-queries.js';

const PRODUCTS = '/api/products/list';
const MULTIPART = 'multipart/mixed, application/json';

function post(h: Harness, query: string, variables: Record<string, unknown>, accept: string): Promise<Response> {
  return fetch(`${h.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept },
    body: JSON.stringify({ query, variables }),
  });
}

/** The JSON parts of a multipart/mixed body, each as soon as it is complete. */
async function* multipartParts(response: Response): AsyncGenerator<any> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body! as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    // A part is complete when the next boundary follows it.
    let end: number;
    while ((end = buffer.indexOf('\r\n---', buffer.indexOf('\r\n\r\n'))) !== -1 && buffer.indexOf('\r\n\r\n') !== -1) {
      const body = buffer.slice(buffer.indexOf('\r\n\r\n') + 4, end).trim();
      buffer = buffer.slice(end + 5);
      if (body !== '') yield JSON.parse(body);
    }
  }
}

/** The `next` events of an SSE body, each as soon as it is complete. */
async function* sseEvents(response: Response): AsyncGenerator<any> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body! as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (/^event: next$/m.test(block) && data !== undefined) yield JSON.parse(data);
    }
  }
}

/** The parts merged into one answer (@defer's fragments and @stream's items at their paths). */
function merge(parts: any[]): { data: any; errors: any[] } {
  const [first, ...rest] = parts;
  const data = structuredClone(first.data);
  const errors = [...(first.errors ?? [])];
  for (const part of rest) {
    for (const increment of part.incremental ?? []) {
      errors.push(...(increment.errors ?? []));
      const at = (path: Array<string | number>) => path.reduce((into: any, key) => into[key], data);
      // A streamed item's path ends with its index in the list.
      if (increment.items) at(increment.path.slice(0, -1)).splice(increment.path.at(-1), increment.items.length, ...increment.items);
      else if (increment.data) Object.assign(at(increment.path), increment.data);
    }
  }
  return { data, errors };
}

describe('incremental delivery over HTTP', () => {
  let s: HeldGateway | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it('sends the first part over multipart/mixed while the deferred part waits on the upstream, and the parts merge into the plain answer', async () => {
    s = await startHeldGateway();
    const { h, held, site } = s;
    held.hold(PRODUCTS);
    const response = await post(h, SITE_DEFERRED, { c: site }, MULTIPART);
    expect(response.headers.get('content-type')).toMatch(/^multipart\/mixed/);
    const parts = multipartParts(response);
    const first = (await parts.next()).value;
    expect(first).toMatchObject({ data: { site: { code: site } }, hasNext: true });
    expect(first.data.site.points).toBeUndefined();
    expect(held.passed(PRODUCTS)).toBe(0);
    // The request's line waits for the last part.
    expect(requestLines(h)).toHaveLength(0);

    held.release(PRODUCTS);
    const all = [first];
    for await (const part of parts) all.push(part);
    expect(all.at(-1).hasNext).toBe(false);
    expect(merge(all)).toEqual({ data: (await h.query(SITE_PLAIN, { c: site })).data, errors: [] });
    const [line] = requestLines(h);
    expect(line).toMatchObject({ operation: 'SiteLanes', status: 200, outcome: 'ok', errorCodes: [] });
    expect(line.upstreamCalls).toBe(1 + held.passed(PRODUCTS)); // the site, and the deferred part's product pages
  });

  it('sends the parts as server-sent events to a client that accepts text/event-stream', async () => {
    s = await startHeldGateway();
    const { h, held, site } = s;
    held.hold(PRODUCTS);
    const response = await post(h, SITE_DEFERRED, { c: site }, 'text/event-stream');
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = sseEvents(response);
    const first = (await events.next()).value;
    expect(first).toMatchObject({ data: { site: { code: site } }, hasNext: true });
    expect(first.data.site.points).toBeUndefined();
    expect(held.passed(PRODUCTS)).toBe(0);

    held.release(PRODUCTS);
    const all = [first];
    for await (const event of events) all.push(event);
    expect(merge(all)).toEqual({ data: (await h.query(SITE_PLAIN, { c: site })).data, errors: [] });
  });

  it('streams a list with @stream, its first items at once and the rest after', async () => {
    s = await startHeldGateway();
    const { h } = s;
    const streamed = 'query P { products(pageSize: 5) { items @stream(initialCount: 2) { goodsCode productName } } }';
    const parts: any[] = [];
    for await (const part of multipartParts(await post(h, streamed, {}, MULTIPART))) parts.push(part);
    expect(parts[0].data.products.items).toHaveLength(2);
    expect(parts.length).toBeGreaterThan(1);
    expect(merge(parts).data).toEqual((await h.query(streamed.replace(' @stream(initialCount: 2)', ''))).data);
  });

  it("puts the answer's notes (the catalog index's dataAge) on its last part", async () => {
    s = await startHeldGateway();
    const { h } = s;
    const product = h.mock.catalog.products[0]!.goodsCode;
    const query = `query A($g: String!) { product(goodsCode: $g) { goodsCode ... @defer { availability(first: 3) { stock } } } }`;
    const parts: any[] = [];
    for await (const part of multipartParts(await post(h, query, { g: product }, MULTIPART))) parts.push(part);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.at(-1)).toMatchObject({ hasNext: false, extensions: { dataAge: expect.any(Number) } });
  });

  it('refuses @defer to a client that accepts neither multipart/mixed nor text/event-stream, before any upstream call', async () => {
    s = await startHeldGateway();
    const { h, site } = s;
    const response = await post(h, SITE_DEFERRED, { c: site }, 'application/graphql-response+json');
    expect(response.status).toBe(406);
    const body = await response.json();
    expect(body.errors[0].extensions.code).toBe('NOT_ACCEPTABLE');
    expect(body.errors[0].message).toContain('multipart/mixed');
    expect(callsByPath(h.mock)).toEqual({});
    // `if: false` answers in one piece: nothing to refuse.
    const inline = await post(h, SITE_DEFERRED.replace('@defer(label: "lanes")', '@defer(if: false)'), { c: site }, 'application/json');
    expect(inline.status).toBe(200);
    expect((await inline.json()).data.site.points).toBeDefined();
    // Nor a variable that is false, nor another operation of the document.
    const byVariable = SITE_DEFERRED.replace('($c: String!)', '($c: String!, $parts: Boolean!)').replace('@defer(label: "lanes")', '@defer(if: $parts)');
    expect((await post(h, byVariable, { c: site, parts: false }, 'application/json')).status).toBe(200);
    const twoOperations = await fetch(`${h.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: `${SITE_DEFERRED} query Name($c: String!) { site(code: $c) { name } }`, variables: { c: site }, operationName: 'Name' }),
    });
    expect(twoOperations.status).toBe(200);
  });

  it('refuses @defer inside a batch, whose one JSON answer cannot carry parts, and answers the batch\'s other operations', async () => {
    s = await startHeldGateway({ env: { BATCHING_LIMIT: '5' } });
    const { h, site } = s;
    const response = await fetch(`${h.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: MULTIPART },
      body: JSON.stringify([{ query: SITE_DEFERRED, variables: { c: site } }, { query: '{ cities { total } }' }]),
    });
    const [deferred, plain] = await response.json();
    expect(deferred.errors[0].extensions.code).toBe('NOT_ACCEPTABLE');
    expect(deferred.errors[0].message).toContain('send it alone');
    expect(plain.data.cities.total).toBe(h.mock.catalog.cities.length);
  });

  it('never stores an answer in parts, nor serves a stored plain answer to a request for parts', async () => {
    s = await startHeldGateway();
    const { h, site } = s;
    const plainDeferred = SITE_DEFERRED.replace('@defer(label: "lanes")', '');
    expect((await post(h, plainDeferred, { c: site }, MULTIPART)).headers.get('x-cache')).toBe('miss');
    const stored = await post(h, plainDeferred, { c: site }, MULTIPART);
    expect(stored.headers.get('x-cache')).toBe('hit');
    expect(stored.headers.get('content-type')).toMatch(/^application\/json/);

    for (let i = 0; i < 2; i += 1) {
      const response = await post(h, SITE_DEFERRED, { c: site }, MULTIPART);
      expect(response.headers.get('x-cache')).toBe('miss');
      expect(response.headers.get('etag')).toBeNull();
      const parts: any[] = [];
      for await (const part of multipartParts(response)) parts.push(part);
      expect(parts[0].hasNext).toBe(true);
      expect(parts.length).toBeGreaterThan(1);
    }
    // Nor by an HTTP cache, even as a GET.
    const url = `${h.url}/graphql?query=${encodeURIComponent(SITE_DEFERRED)}&variables=${encodeURIComponent(JSON.stringify({ c: site }))}`;
    const get = await fetch(url, { headers: { accept: MULTIPART } });
    expect(get.headers.get('content-type')).toMatch(/^multipart\/mixed/);
    expect(get.headers.get('cache-control')).toBe('no-store');
    await get.arrayBuffer();
  });

  it('prices the deferred fragments with the rest: an operation over budget only through them is refused before it runs', async () => {
    s = await startHeldGateway({ env: { MAX_UPSTREAM_CALLS_PER_OPERATION: '1' } });
    const { h, site } = s;
    const response = await post(h, SITE_DEFERRED, { c: site }, MULTIPART);
    const body = await response.json();
    // The site, and the product list's first walk page: two calls while its cap is not known.
    expect(body.errors[0].extensions).toMatchObject({ code: 'UPSTREAM_BUDGET_EXCEEDED', estimate: 3 });
    expect(callsByPath(h.mock)).toEqual({});
    // Without the deferred fragment it fits.
    expect((await h.query(`query S($c: String!) { site(code: $c) { code name } }`, { c: site })).errors).toBeUndefined();
  });

  it('checks the arguments inside a deferred fragment before anything runs', async () => {
    s = await startHeldGateway();
    const { h, site } = s;
    const deferredArgument = `query S($c: String!) { site(code: $c) { code ... @defer { isOpen(at: "nonsense") } } }`;
    const body = await (await post(h, deferredArgument, { c: site }, MULTIPART)).json();
    expect(body.errors.map((e: any) => e.extensions.code)).toEqual(['BAD_USER_INPUT']);
    expect(body.data).toBeUndefined();
    expect(callsByPath(h.mock)).toEqual({});
  });

  it('counts @defer and @stream toward MAX_DIRECTIVES like any directive', async () => {
    s = await startHeldGateway({ env: { MAX_DIRECTIVES: '1' } });
    const { h, site } = s;
    const two = `query S($c: String!) { site(code: $c) { code @include(if: true) ... @defer { name } } }`;
    const body = await (await post(h, two, { c: site }, MULTIPART)).json();
    expect(body.errors[0].extensions.code).toBe('DIRECTIVE_LIMIT_EXCEEDED');
    expect(callsByPath(h.mock)).toEqual({});
  });

  it('stops calls made while streaming beyond the budget, in the deferred part, with the budget code', async () => {
    // The estimate (the site, and the product list's first walk page, two calls before its cap is
    // known) fits 3; a walk of 250 products then needs more pages than that.
    s = await startHeldGateway({ mock: { catalog: { products: 250 } }, env: { MAX_UPSTREAM_CALLS_PER_OPERATION: '3' } });
    const { h, site } = s;
    const parts: any[] = [];
    for await (const part of multipartParts(await post(h, SITE_DEFERRED, { c: site }, MULTIPART))) parts.push(part);
    expect(parts[0].data.site.code).toBe(site);
    const { errors } = merge(parts);
    expect(errors.map((e: any) => e.extensions.code)).toContain('UPSTREAM_BUDGET_EXCEEDED');
    expect(requestLines(h)[0].errorCodes).toContain('UPSTREAM_BUDGET_EXCEEDED');
    expect(requestLines(h)[0].upstreamCalls).toBeLessThanOrEqual(3);
  });

  it('ends the deferred part at the request deadline with REQUEST_TIMEOUT while its upstream call still hangs', async () => {
    s = await startHeldGateway({ env: { REQUEST_TIMEOUT_MS: '1000' } });
    const { h, held, site } = s;
    held.hold(PRODUCTS);
    const parts: any[] = [];
    for await (const part of multipartParts(await post(h, SITE_DEFERRED, { c: site }, MULTIPART))) parts.push(part);
    expect(held.waiting(PRODUCTS)).toBeGreaterThan(0);
    expect(parts[0].data.site.code).toBe(site);
    expect(parts.at(-1).hasNext).toBe(false);
    expect(merge(parts).errors.map((e: any) => e.extensions.code)).toContain('REQUEST_TIMEOUT');
    await vi.waitFor(() => expect(requestLines(h)[0]?.errorCodes).toContain('REQUEST_TIMEOUT'));
  });

  it('writes the request line when a client leaves in the middle of an answer in parts', async () => {
    s = await startHeldGateway();
    const { h, held, site } = s;
    held.hold(PRODUCTS);
    const leave = new AbortController();
    const response = await fetch(`${h.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: MULTIPART },
      body: JSON.stringify({ query: SITE_DEFERRED, variables: { c: site } }),
      signal: leave.signal,
    });
    const first = (await multipartParts(response).next()).value;
    expect(first.hasNext).toBe(true);
    await vi.waitFor(() => expect(held.waiting(PRODUCTS)).toBeGreaterThan(0));
    expect(requestLines(h)).toHaveLength(0);
    leave.abort();
    await vi.waitFor(() => expect(requestLines(h)).toHaveLength(1));
    expect(requestLines(h)[0]).toMatchObject({ operation: 'SiteLanes', status: 200 });
  });

  it('masks an upstream failure in a deferred part as in a plain answer, and logs its code once the part is sent', async () => {
    s = await startHeldGateway({ env: { UPSTREAM_RETRIES: '0' } });
    const { h, site } = s;
    // The product list fails, and so does the fallback to one product at a time.
    h.mock.fault(PRODUCTS, 'http503');
    h.mock.fault('/api/product/detail', 'http503');
    const parts: any[] = [];
    for await (const part of multipartParts(await post(h, SITE_DEFERRED, { c: site }, MULTIPART))) parts.push(part);
    const { errors } = merge(parts);
    const plain = await h.query(SITE_PLAIN, { c: site });
    expect(errors.length).toBeGreaterThan(0);
    expect(new Set(errors.map((e: any) => e.extensions.code))).toEqual(new Set(plain.errors!.map((e) => e.extensions!.code)));
    expect(new Set(errors.map((e: any) => e.message))).toEqual(new Set(plain.errors!.map((e) => e.message)));
    expect(JSON.stringify(parts)).not.toContain('127.0.0.1');
    expect(requestLines(h)[0]).toMatchObject({ operation: 'SiteLanes', outcome: 'error', errorCodes: [errors[0].extensions.code] });
  });
});
