/**
 * Demo mode: with no upstream configured, the mock upstream runs in-process with demo data, loaded
 * only then; it sells and restocks on its own, so live stock has something to show.
 */
import type { UpstreamConfig } from '../base/config/config.js';
import type { MockUpstream, Scheduler } from '../mock-upstream/index.js';

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

/** How the demo's mock behaves. */
export interface DemoOptions {
  /** Latency per call, in ms (`DEMO_LATENCY_MS`). */
  latencyMs: number;
  /** Items sold a minute at each site in service (`DEMO_SALES_PER_MINUTE`); 0: the stock stands still. */
  salesPerMinute: number;
  /** Where the sales' ticks come from. Default: real timers. */
  scheduler?: Scheduler;
}

/** A running demo upstream. */
export interface DemoUpstream {
  url: string;
  upstream: UpstreamConfig;
  /** The mock itself, for tests that watch it. */
  mock: MockUpstream;
  close(): Promise<void>;
}

/** Starts the mock upstream with demo data, its latency and its sales. */
export async function startDemoUpstream({ latencyMs, salesPerMinute, scheduler }: DemoOptions): Promise<DemoUpstream> {
  const { createMockUpstream } = await import('../mock-upstream/index.js');
  const mock = await createMockUpstream({ latencyMs, sales: { perMinute: salesPerMinute, scheduler } });
  return { url: mock.url, upstream: upstreamConfigFor(mock), mock, close: () => mock.close() };
}
