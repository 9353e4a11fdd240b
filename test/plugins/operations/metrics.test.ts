import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';
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
    h = await startGateway();
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
    h.mock.setLatency(300);
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
