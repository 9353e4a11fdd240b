/**
 * Demo mode: with no UPSTREAM_BASE_URL, the project's own mock upstream runs in-process with
 * demo data, and the gateway is pointed at it. The mock is loaded only when asked for.
 */
import type { UpstreamConfig } from '../base/config/config.js';

/** What the gateway needs to know of a running mock upstream. */
export interface MockAddress {
  url: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
}

export function upstreamConfigFor(mock: MockAddress): UpstreamConfig {
  return {
    baseUrl: mock.url,
    tokenUrl: mock.tokenUrl,
    clientId: mock.clientId,
    clientSecret: mock.clientSecret,
    scope: undefined,
    clientAuth: 'basic',
  };
}

/** Starts the mock upstream with demo data and `latencyMs` of latency per call. */
export async function startDemoUpstream(latencyMs: number) {
  const { createMockUpstream } = await import('../mock-upstream/index.js');
  const mock = await createMockUpstream({ latencyMs });
  return { url: mock.url, upstream: upstreamConfigFor(mock), close: () => mock.close() };
}
