import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, type ConfigError } from '../../../src/base/config/config.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { logEntries, post, requestLines } from '../../helpers/http.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../helpers/otlp-receiver.js';

const SITE = 'query SiteWithLanes($c: String!) { site(code: $c) { name points { cargoLanes { product { productName } } } } }';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN_ID = '00f067aa0ba902b7';
const SERVER = 2;
const CLIENT = 3;

describe('OpenTelemetry traces', () => {
  let h: Harness | undefined;
  let receiver: OtlpReceiver | undefined;
  afterEach(async () => {
    await h?.close();
    await receiver?.close();
    h = undefined;
    receiver = undefined;
  });

  // Closing the gateway shuts its tracer provider down, which exports every span left: no sleeping.
  async function tracedGateway(env: Record<string, string> = {}): Promise<{ h: Harness; receiver: OtlpReceiver }> {
    receiver = await startOtlpReceiver();
    h = await startGateway({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'gateway-under-test', ...env } });
    return { h, receiver };
  }

  it('with OTEL_TRUST_CLIENT_TRACE continues a client traceparent: the request, the operation and every upstream call nest in one exported trace', async () => {
    const { h, receiver } = await tracedGateway({ OTEL_TRUST_CLIENT_TRACE: 'true', RESPONSE_CACHE_MAX_BYTES: '0' });
    const site = h.mock.catalog.sites[0]!;
    const answer = await post(h, SITE, {
      variables: { c: site.code },
      headers: { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN_ID}-01`, 'x-request-id': 'traced-1' },
    });
    expect(answer.status).toBe(200);
    await h.close();

    const spans = receiver.spans();
    expect(spans.every((span) => span.traceId === TRACE_ID && span.service === 'gateway-under-test')).toBe(true);
    const server = only(spans, (span) => span.kind === SERVER);
    expect(server).toMatchObject({ name: 'POST /graphql', parentSpanId: CLIENT_SPAN_ID });
    expect(server.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 200, 'gateway.request_id': 'traced-1' });
    expect(server.attributes['gateway.upstream_calls']).toBe(h.mock.calls());

    const operation = only(spans, (span) => span.parentSpanId === server.spanId);
    expect(operation.name).toBe('query SiteWithLanes');
    expect(operation.attributes).toEqual({
      'graphql.operation.type': 'query',
      'graphql.operation.name': 'SiteWithLanes',
      'graphql.document.hash': `sha256:${createHash('sha256').update(SITE).digest('hex')}`,
    });

    const apiCalls = h.mock.callLog().filter((entry) => entry.path !== '/oauth/token');
    const calls = spans.filter((span) => span.kind === CLIENT && span.name.startsWith('GET '));
    expect(apiCalls.length).toBeGreaterThan(1);
    expect(calls).toHaveLength(apiCalls.length);
    for (const call of calls) {
      expect(ancestors(spans, call)).toContain(operation.spanId);
      expect(call.attributes).toMatchObject({ 'http.response.status_code': 200, 'upstream.outcome': 'ok', 'upstream.attempts': 1 });
      expect(call.attributes['http.response.body.size']).toBeGreaterThan(0);
    }
    // The upstream saw each call's own span as its parent, in the client's trace.
    expect(apiCalls.map((entry) => entry.traceparent).sort())
      .toEqual(calls.map((call) => `00-${TRACE_ID}-${call.spanId}-01`).sort());
    const token = only(spans, (span) => span.name === 'POST token');
    expect(token.attributes).toMatchObject({ 'http.request.method': 'POST', 'url.path': '/oauth/token', 'http.response.status_code': 200 });

    // Logs and traces join: the request's line carries its trace and its span; the upstream
    // client's debug lines carry their call's span.
    const line = requestLines(h)[0];
    expect([line.trace_id, line.span_id]).toEqual([TRACE_ID, server.spanId]);
    const callLines = logEntries(h).filter((entry) => entry.msg === 'upstream call');
    expect(callLines.length).toBe(calls.length);
    expect(callLines.map((entry) => entry.span_id).sort()).toEqual(calls.map((call) => call.spanId).sort());
  });

  it('gives an answer served stored its operation span under its request span, as an executed one', async () => {
    const { h, receiver } = await tracedGateway();
    const site = h.mock.catalog.sites[1]!;
    for (let i = 0; i < 2; i += 1) expect((await post(h, SITE, { variables: { c: site.code } })).status).toBe(200);
    await h.close();
    const spans = receiver.spans();
    const servers = spans.filter((span) => span.kind === SERVER);
    expect(servers.map((span) => span.attributes['gateway.response_cache'])).toEqual(['miss', 'hit']);
    for (const server of servers) {
      expect(spans.filter((span) => span.parentSpanId === server.spanId).map((span) => span.name)).toEqual(['query SiteWithLanes']);
    }
  });

  it('keeps an answer in parts (@defer) as one operation span, ended by its last part', async () => {
    const { h, receiver } = await tracedGateway({ RESPONSE_CACHE_MAX_BYTES: '0' });
    const deferred = `query Deferred($c: String!) { site(code: $c) { name ... @defer { points { cargoLanes { product { productName } } } } } }`;
    const response = await fetch(`${h.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'multipart/mixed' },
      body: JSON.stringify({ query: deferred, variables: { c: h.mock.catalog.sites[0]!.code } }),
    });
    expect(response.headers.get('content-type')).toContain('multipart/mixed');
    expect(await response.text()).toContain('productName');
    await h.close();

    const spans = receiver.spans();
    const operation = only(spans, (span) => span.name === 'query Deferred');
    const products = spans.filter((span) => span.name === 'GET /api/product/detail' || span.name === 'GET /api/products/list');
    expect(products.length).toBeGreaterThan(0);
    for (const call of products) {
      expect(ancestors(spans, call)).toContain(operation.spanId);
      // The deferred part's upstream calls end before the operation does.
      expect(call.endTimeUnixNano <= operation.endTimeUnixNano).toBe(true);
    }
  });

  it('sends no token, client secret, credentials or variable value to the collector', async () => {
    const { h, receiver } = await tracedGateway({ RESPONSE_CACHE_MAX_BYTES: '0' });
    const site = h.mock.catalog.sites[1]!;
    expect((await post(h, SITE, { variables: { c: site.code } })).status).toBe(200);
    await h.close();

    const exported = receiver.bodies().join('\n');
    expect(receiver.spans().length).toBeGreaterThan(3);
    const bearer = h.mock.callLog().find((entry) => entry.authorization?.startsWith('Bearer '))!.authorization!;
    const basic = Buffer.from(`${h.mock.clientId}:${h.mock.clientSecret}`).toString('base64');
    for (const secret of [bearer.slice('Bearer '.length), h.mock.clientSecret, basic, 'Bearer', 'Basic', `"${site.code}"`]) {
      expect(exported).not.toContain(secret);
    }
  });

  it('records a failed upstream call on its span with its code, attempts and retry delays, and the error code on the operation', async () => {
    const { h, receiver } = await tracedGateway();
    h.mock.fault('/api/site/detail', 'http503');
    const site = h.mock.catalog.sites[2]!;
    const answer = await post(h, 'query Broken($c: String!) { site(code: $c) { name } }', { variables: { c: site.code } });
    expect(answer.body.errors[0].extensions.code).toBe('UPSTREAM_UNAVAILABLE');
    await h.close();

    const spans = receiver.spans();
    const call = only(spans, (span) => span.name === 'GET /api/site/detail');
    expect(call.status.code).toBe(2);
    expect(call.attributes).toMatchObject({ 'error.type': 'UPSTREAM_UNAVAILABLE', 'upstream.outcome': 'http_503', 'upstream.attempts': 3, 'http.response.status_code': 503 });
    const retries = call.events.filter((event) => event.name === 'retry');
    expect(retries.map((event) => event.attributes['upstream.retry'])).toEqual([1, 2]);
    for (const retry of retries) expect(retry.attributes['upstream.retry_delay_ms']).toBeGreaterThanOrEqual(0);
    const operation = only(spans, (span) => span.name === 'query Broken');
    expect(operation.status).toMatchObject({ code: 2, message: 'UPSTREAM_UNAVAILABLE' });
    expect(operation.attributes['graphql.error.codes']).toEqual(['UPSTREAM_UNAVAILABLE']);
    expect(only(spans, (span) => span.kind === SERVER).attributes['graphql.error.codes']).toEqual(['UPSTREAM_UNAVAILABLE']);
  });

  it('traces a walk of the catalog index with its upstream pages beneath it', async () => {
    const { h, receiver } = await tracedGateway();
    const answer = await post(h, '{ searchProducts(text: "a") { goodsCode } }');
    expect(answer.status).toBe(200);
    await h.close();

    const spans = receiver.spans();
    const walk = only(spans, (span) => span.name === 'catalog.walk products');
    expect(walk.attributes['catalog.part']).toBe('products');
    const pages = spans.filter((span) => span.name === 'GET /api/products/list');
    expect(pages.length).toBeGreaterThan(0);
    for (const page of pages) expect(ancestors(spans, page)).toContain(walk.spanId);
  });

  it('samples by OTEL_TRACES_SAMPLER: at ratio 0 a client’s sampled traceparent is exported with OTEL_TRUST_CLIENT_TRACE only, yet every call carries the trace on', async () => {
    for (const trust of ['false', 'true']) {
      const { h, receiver } = await tracedGateway({
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0', OTEL_TRUST_CLIENT_TRACE: trust, RESPONSE_CACHE_MAX_BYTES: '0',
      });
      await post(h, SITE, { variables: { c: h.mock.catalog.sites[0]!.code } });
      const unsampled = h.mock.callLog().filter((entry) => entry.path !== '/oauth/token');
      expect(unsampled.length).toBeGreaterThan(0);
      for (const entry of unsampled) expect(entry.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
      h.mock.resetCounters();
      await post(h, SITE, { variables: { c: h.mock.catalog.sites[1]!.code }, headers: { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN_ID}-01` } });
      const calls = h.mock.callLog().filter((entry) => entry.path !== '/oauth/token');
      expect(calls.length).toBeGreaterThan(0);
      await h.close();

      const spans = receiver.spans();
      if (trust === 'true') {
        expect(spans.length).toBeGreaterThan(2);
        expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([TRACE_ID]));
        for (const entry of calls) expect(entry.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
      } else {
        // The gateway's own sampler decided (ratio 0): nothing exported, and the upstream saw the
        // gateway's own unsampled trace, not the client's.
        expect(spans).toEqual([]);
        for (const entry of calls) expect(entry.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
        expect(calls.some((entry) => entry.traceparent?.includes(TRACE_ID))).toBe(false);
      }
      await receiver.close();
    }
  });

  it('by default roots the request in a trace of its own, links the client’s span, and sends no client tracestate upstream', async () => {
    for (const trust of ['false', 'true']) {
      receiver = await startOtlpReceiver();
      const proxy = await recordingProxy();
      try {
        h = await startGateway({
          env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_SAMPLER: 'always_on', OTEL_TRUST_CLIENT_TRACE: trust, RESPONSE_CACHE_MAX_BYTES: '0' },
          upstream: { baseUrl: proxy.url },
        });
        proxy.forwardTo(h.mock.url);
        const answer = await post(h, SITE, {
          variables: { c: h.mock.catalog.sites[0]!.code },
          headers: { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN_ID}-01`, tracestate: 'vendor=client-says' },
        });
        expect(answer.status).toBe(200);
        await h.close();
      } finally {
        await proxy.close();
      }
      expect(proxy.headers.length).toBeGreaterThan(0);
      const server = only(receiver.spans(), (span) => span.kind === SERVER);
      const links = linksOf(receiver, server.spanId);
      if (trust === 'true') {
        expect([server.traceId, server.parentSpanId, links]).toEqual([TRACE_ID, CLIENT_SPAN_ID, []]);
        for (const headers of proxy.headers) expect(headers.tracestate).toBe('vendor=client-says');
      } else {
        expect(server.traceId).not.toBe(TRACE_ID);
        expect(server.parentSpanId).toBe('');
        expect(links).toEqual([{ traceId: TRACE_ID, spanId: CLIENT_SPAN_ID }]);
        expect(receiver.bodies().join('\n')).not.toContain('client-says');
        for (const headers of proxy.headers) {
          expect(headers.tracestate).toBeUndefined();
          expect(headers.traceparent).toMatch(new RegExp(`^00-${server.traceId}-[0-9a-f]{16}-01$`));
        }
      }
      await receiver.close();
      receiver = undefined;
      h = undefined;
    }
  });

  it('starts a fresh trace for a malformed traceparent instead of failing the request', async () => {
    const { h, receiver } = await tracedGateway();
    const answer = await post(h, '{ __typename }', { headers: { traceparent: `00-${'z'.repeat(32)}-${CLIENT_SPAN_ID}-01` } });
    expect(answer.status).toBe(200);
    await h.close();
    const server = only(receiver.spans(), (span) => span.kind === SERVER);
    expect(server.parentSpanId).toBe('');
    expect(server.traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('with no endpoint makes no spans: nothing exported, no traceparent upstream, no trace ids in the logs', async () => {
    receiver = await startOtlpReceiver();
    const envs: Array<Record<string, string>> = [{ OTEL_SERVICE_NAME: 'no-endpoint' }, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SDK_DISABLED: 'true' }];
    for (const env of envs) {
      h = await startGateway({ env: { RESPONSE_CACHE_MAX_BYTES: '0', ...env } });
      const site = h.mock.catalog.sites[0]!;
      const answer = await post(h, SITE, { variables: { c: site.code }, headers: { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN_ID}-01` } });
      expect(answer.status).toBe(200);
      await h.close();
      expect(h.mock.callLog().length).toBeGreaterThan(1);
      expect(h.mock.callLog().filter((entry) => entry.traceparent !== undefined)).toEqual([]);
      expect(logEntries(h).filter((entry) => 'trace_id' in entry || 'span_id' in entry)).toEqual([]);
      h = undefined;
    }
    expect(receiver.bodies()).toEqual([]);
  });

  it('reads only the standard OTEL_ variables, checked with the rest of the configuration', () => {
    expect(loadConfig({}).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing).toEqual({
      endpoint: 'http://collector:4318/v1/traces', serviceName: 'vending-graph', sampler: 'parentbased_always_on', samplerRatio: 1, trustClientTrace: false,
    });
    expect(loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/custom',
      OTEL_SERVICE_NAME: 'edge',
      OTEL_TRACES_SAMPLER: 'traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
    }).tracing).toEqual({ endpoint: 'http://traces:4318/custom', serviceName: 'edge', sampler: 'traceidratio', samplerRatio: 0.1, trustClientTrace: false });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).tracing).toBeUndefined();

    const problems = (() => {
      try {
        loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector', OTEL_TRACES_SAMPLER: 'sometimes', OTEL_TRACES_SAMPLER_ARG: '1.5', OTEL_SDK_DISABLED: 'maybe' });
        return [];
      } catch (error) {
        return (error as ConfigError).problems;
      }
    })();
    expect(problems).toHaveLength(4);
    expect(problems.join('\n')).toMatch(/OTEL_EXPORTER_OTLP_ENDPOINT[\s\S]*OTEL_TRACES_SAMPLER must be one of[\s\S]*OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1/);
  });
});

function only(spans: ReceivedSpan[], test: (span: ReceivedSpan) => boolean): ReceivedSpan {
  const found = spans.filter(test);
  expect(found, `spans: ${spans.map((span) => span.name).join(', ')}`).toHaveLength(1);
  return found[0]!;
}

// Private: the span ids above `span`, nearest first.
function ancestors(spans: ReceivedSpan[], span: ReceivedSpan): string[] {
  const byId = new Map(spans.map((one) => [one.spanId, one]));
  const found: string[] = [];
  for (let parent = byId.get(span.parentSpanId); parent !== undefined; parent = byId.get(parent.parentSpanId)) found.push(parent.spanId);
  return found;
}

// Private: the links of the span `spanId` as exported (OTLP JSON), ids only.
function linksOf(receiver: OtlpReceiver, spanId: string): Array<{ traceId: string; spanId: string }> {
  for (const body of receiver.bodies()) {
    for (const resource of JSON.parse(body).resourceSpans ?? []) {
      for (const scope of resource.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          if (span.spanId === spanId) return (span.links ?? []).map((link: any) => ({ traceId: link.traceId, spanId: link.spanId }));
        }
      }
    }
  }
  throw new Error(`span ${spanId} not exported`);
}

// Private: an HTTP proxy in front of the mock upstream that records the headers of every API call.
async function recordingProxy() {
  const headers: IncomingHttpHeaders[] = [];
  let target = '';
  const server = createServer((req, res) => {
    headers.push(req.headers);
    void fetch(`${target}${req.url}`, { headers: { authorization: req.headers.authorization ?? '', accept: 'application/json' } })
      .then(async (answer) => res.writeHead(answer.status, { 'content-type': 'application/json' }).end(Buffer.from(await answer.arrayBuffer())))
      .catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    headers,
    forwardTo: (url: string) => void (target = url),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
