import { afterEach, describe, expect, it } from 'vitest';
import { clockReading } from '../../helpers/upstream.js';
import { createOperationLabels } from '../../../src/observability/operation-labels.js';
import { startGateway, type Harness, type ManualClock } from '../../helpers/gateway.js';
import { metric, post, scrape, until } from '../../helpers/http.js';

const PRODUCT = 'query Product($g: String!) { product(goodsCode: $g) { productName } }';
const CITIES = 'query Cities { cities { total } }';

describe('/metrics', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('exposes every family in the Prometheus text format, process metrics included', async () => {
    h = await startGateway();
    await post(h, CITIES);
    const text = await scrape(h);
    for (const family of [
      'gateway_graphql_requests_total',
      'gateway_graphql_request_duration_seconds',
      'gateway_rejected_requests_total',
      'gateway_upstream_calls_total',
      'gateway_upstream_call_duration_seconds',
      'gateway_upstream_calls_in_flight',
      'gateway_upstream_breaker_state',
      'gateway_cache_lookups_total',
      'gateway_cache_entries',
      'gateway_token_requests_total',
      'process_cpu_user_seconds_total',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(text).toContain(`# TYPE ${family} `);
    }
  });

  it('counts GraphQL requests and their durations by operation name and outcome', async () => {
    // The gateway's clock stands still unless moved: each upstream call moves it 5 ms as the mock logs it.
    const moved: { clock?: ManualClock } = {};
    h = await startGateway({ mock: { now: () => (moved.clock?.advance(5), Date.now()) } });
    moved.clock = h.clock;
    await post(h, CITIES);
    await post(h, CITIES);
    await post(h, PRODUCT, { variables: {} }); // a missing variable: an error
    const text = await scrape(h);
    expect(metric(text, 'gateway_graphql_requests_total', { operation: 'Cities', outcome: 'ok' })).toBe(2);
    expect(metric(text, 'gateway_graphql_requests_total', { operation: 'Product', outcome: 'error' })).toBe(1);
    expect(metric(text, 'gateway_graphql_request_duration_seconds_count', { operation: 'Cities', outcome: 'ok' })).toBe(2);
    expect(metric(text, 'gateway_graphql_request_duration_seconds_sum', { operation: 'Cities' })).toBeGreaterThan(0);
  });

  it('counts upstream calls and their latency by path and outcome, a 503 and the breaker state included', async () => {
    h = await startGateway({ env: { UPSTREAM_RETRIES: '2' } });
    await post(h, PRODUCT, { variables: { g: 'G00001' } });
    h.mock.fault('/api/product/detail', 'http503');
    await post(h, PRODUCT, { variables: { g: 'G00002' } });
    let text = await scrape(h);
    const path = { operation: '/api/product/detail' };
    expect(metric(text, 'gateway_upstream_calls_total', { ...path, outcome: 'ok' })).toBe(1);
    expect(metric(text, 'gateway_upstream_calls_total', { ...path, outcome: 'http_503' })).toBe(3);
    expect(metric(text, 'gateway_upstream_call_duration_seconds_count', { ...path, outcome: 'http_503' })).toBe(3);
    expect(metric(text, 'gateway_upstream_breaker_state', path)).toBe(0);

    // Two more failing calls make 5 of 6 in the window: the circuit opens, calls fail fast.
    await post(h, PRODUCT, { variables: { g: 'G00003' } });
    await post(h, PRODUCT, { variables: { g: 'G00004' } });
    text = await scrape(h);
    expect(metric(text, 'gateway_upstream_breaker_state', path)).toBe(2);
    expect(metric(text, 'gateway_upstream_calls_total', { ...path, outcome: 'circuit_open' })).toBeGreaterThan(0);
  });

  it('shows upstream calls in flight while they run', async () => {
    h = await startGateway();
    // 2 s: the scrape below falls within the call even on a busy machine.
    h.mock.setLatency(2000);
    const pending = post(h, CITIES);
    await until(() => h.mock.inFlight() === 1);
    expect(metric(await scrape(h), 'gateway_upstream_calls_in_flight', { operation: '/api/city/list' })).toBe(1);
    await pending;
    expect(metric(await scrape(h), 'gateway_upstream_calls_in_flight', { operation: '/api/city/list' })).toBe(0);
  });

  it('counts a cache miss, then a hit, then a stale serve, by kind of data', async () => {
    h = await startGateway({ env: { CACHE_TTL_PRODUCTS_S: '60', UPSTREAM_RETRIES: '0', RESPONSE_CACHE_MAX_BYTES: '0' } });
    const product = { kind: 'product' };
    await post(h, PRODUCT, { variables: { g: 'G00001' } });
    let text = await scrape(h);
    expect(metric(text, 'gateway_cache_lookups_total', { ...product, result: 'miss' })).toBe(1);
    expect(metric(text, 'gateway_cache_lookups_total', { ...product, result: 'hit' })).toBe(0);

    await post(h, PRODUCT, { variables: { g: 'G00001' } });
    text = await scrape(h);
    expect(metric(text, 'gateway_cache_lookups_total', { ...product, result: 'hit' })).toBe(1);
    expect(metric(text, 'gateway_cache_entries')).toBeGreaterThan(0);

    h.clock.advance(61_000);
    h.mock.fault('/api/product/detail', 'http503');
    const stale = await post(h, PRODUCT, { variables: { g: 'G00001' } });
    expect(stale.body.extensions.stale).toHaveLength(1);
    text = await scrape(h);
    expect(metric(text, 'gateway_cache_lookups_total', { ...product, result: 'stale' })).toBe(1);
  });

  it('counts token requests: the first fetch, then a failed refresh', async () => {
    h = await startGateway({ env: { UPSTREAM_RETRIES: '0' } });
    await post(h, CITIES);
    expect(metric(await scrape(h), 'gateway_token_requests_total', { outcome: 'ok' })).toBe(1);

    h.mock.expireAllTokens();
    h.mock.fault('/oauth/token', 'http503');
    await post(h, PRODUCT, { variables: { g: 'G00001' } });
    const text = await scrape(h);
    expect(metric(text, 'gateway_token_requests_total', { outcome: 'ok' })).toBe(1);
    expect(metric(text, 'gateway_token_requests_total', { outcome: 'http_503' })).toBe(1);
  });

  it('counts requests refused before GraphQL ran, by reason', async () => {
    const key = 'metrics-test-key-0123456789';
    h = await startGateway({ env: { GATEWAY_API_KEYS: key, RATE_LIMIT_PER_MINUTE: '1' } });
    await post(h, CITIES);
    await post(h, CITIES, { headers: { 'x-api-key': key } });
    await post(h, CITIES, { headers: { 'x-api-key': key } });
    const text = await scrape(h, { 'x-api-key': key });
    expect(metric(text, 'gateway_rejected_requests_total', { reason: 'unauthenticated' })).toBe(1);
    expect(metric(text, 'gateway_rejected_requests_total', { reason: 'rate_limited' })).toBe(1);
  });
});

/** The distinct `operation` values of `gateway_graphql_requests_total`. */
function operationLabels(text: string): Set<string> {
  const matches = text.matchAll(/^gateway_graphql_requests_total\{[^}]*operation="([^"]*)"/gm);
  return new Set([...matches].map((match) => match[1]!));
}

/** `count` requests, each a valid operation of its own name (`Junk<i>`), 25 at a time. */
async function junk(h: Harness, count: number): Promise<void> {
  for (let start = 0; start < count; start += 25) {
    const names = Array.from({ length: Math.min(25, count - start) }, (_, i) => `Junk${start + i}`);
    await Promise.all(names.map((name) => post(h, `query ${name} { __typename }`)));
  }
}

describe('the operation label', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('stays bounded under 150 junk names, and a real operation used repeatedly then gets its own', async () => {
    h = await startGateway();
    await junk(h, 150);
    for (let i = 0; i < 3; i += 1) await post(h, CITIES);
    const text = await scrape(h);
    // The first two uses of Cities were `other`; the third took the place of a junk name used once.
    expect(metric(text, 'gateway_graphql_requests_total', { operation: 'Cities' })).toBe(1);
    expect(metric(text, 'gateway_graphql_requests_total', { operation: 'other' })).toBe(52);
    const labels = operationLabels(text);
    expect(labels.size).toBe(101); // 99 junk names (the one dropped lost its series), Cities and other
    expect(labels.has('Cities')).toBe(true);
  });

  it('keeps the label of an operation in use through a flood of junk names', async () => {
    h = await startGateway();
    await post(h, CITIES);
    await post(h, CITIES);
    await junk(h, 150);
    await post(h, CITIES);
    const text = await scrape(h);
    expect(metric(text, 'gateway_graphql_requests_total', { operation: 'Cities' })).toBe(3);
    expect(operationLabels(text).size).toBe(101);
  });

  it('gives no label to the name of an operation that did not validate', async () => {
    h = await startGateway();
    await post(h, 'query NoSuchField { nope }', { operationName: 'NoSuchField' });
    const text = await scrape(h);
    expect(metric(text, 'gateway_graphql_requests_total', { operation: 'other', outcome: 'error' })).toBe(1);
    expect(operationLabels(text)).toEqual(new Set(['other']));
  });
});

describe('createOperationLabels', () => {
  it('labels names while there is room, then takes the place of the least used for a name used more than twice as much', () => {
    const dropped: string[] = [];
    const labels = createOperationLabels({ maxLabels: 2, clock: clockReading(() => 0), onDropped: (name) => dropped.push(name) });
    expect(['a', 'b', 'b', 'c', 'c'].map((name) => labels.label(name, true))).toEqual(['a', 'b', 'b', 'other', 'other']);
    expect(labels.label('c', true)).toBe('c'); // 3 uses against a's 1
    expect(dropped).toEqual(['a']);
    expect(labels.labelled().sort()).toEqual(['b', 'c']);
    expect(labels.label('a', false)).toBe('other');
  });

  it('lets a name unused for two windows give its place to any name in use', () => {
    let now = 0;
    const labels = createOperationLabels({ maxLabels: 1, windowMs: 1000, clock: clockReading(() => now) });
    for (let i = 0; i < 50; i += 1) labels.label('old', true);
    expect(labels.label('new', true)).toBe('other');
    now = 1500; // half of the previous window still counts: old 25, new 0.5
    expect(labels.label('new', true)).toBe('other');
    now = 2000;
    expect(labels.label('new', true)).toBe('new');
    expect(labels.labelled()).toEqual(['new']);
  });

  it('keeps the count of a name used repeatedly while one-off names come and go', () => {
    const labels = createOperationLabels({ maxLabels: 1, maxTracked: 5, clock: clockReading(() => 0) });
    labels.label('held', true);
    labels.label('real', true);
    labels.label('real', true);
    for (let i = 0; i < 100; i += 1) labels.label(`junk${i}`, true);
    expect(labels.label('real', true)).toBe('real'); // 3 uses against held's 1
  });

  it('keeps anonymous, unknown and other as they are, without taking a place', () => {
    const labels = createOperationLabels({ maxLabels: 1, clock: clockReading(() => 0) });
    expect(labels.label('anonymous', true)).toBe('anonymous');
    expect(labels.label('unknown', false)).toBe('unknown');
    expect(labels.label('Cities', true)).toBe('Cities');
  });
});
