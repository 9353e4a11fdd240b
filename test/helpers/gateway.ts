/**
 * Starts the project's mock upstream and a gateway in front of it, both on port 0, and talks
 * to the gateway over real HTTP.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { systemClock, type Clock } from '../../src/base/clock.js';
import { loadConfig, type UpstreamConfig } from '../../src/base/config/config.js';
import { upstreamConfigFor } from '../../src/app/demo.js';
import { createGateway, type Gateway, type GatewayDependencies } from '../../src/app/gateway.js';
import { createLogger } from '../../src/base/logger.js';
import { listen } from '../../src/doors/http/server.js';
import { attachWebSocket, type WebSocketTransport } from '../../src/doors/ws/websocket.js';
import {
  createMockUpstream,
  type MockUpstream,
  type MockUpstreamOptions,
} from '../../src/mock-upstream/index.js';

export interface GraphQLResponse<T = Record<string, unknown>> {
  data?: T | null;
  errors?: Array<{ message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }>;
  extensions?: Record<string, unknown>;
}

/** A clock the test moves by hand (the shared cache's TTLs read it). */
/** The gateway's clock in a test: its monotonic face moves only when the test says (`advance`). */
export interface ManualClock extends Clock {
  advance(ms: number): void;
}

export interface Harness {
  mock: MockUpstream;
  /** The gateway's base URL, e.g. `http://127.0.0.1:54321`. */
  url: string;
  /** GraphQL over WebSocket (graphql-ws), e.g. `ws://127.0.0.1:54321/graphql`. */
  wsUrl: string;
  clock: ManualClock;
  /** Every log line the gateway wrote. */
  logs: string[];
  /** The gateway itself (its yoga instance), for tests that watch which path served a request. */
  gateway: Gateway;
  /** GraphQL over WebSocket: its sockets and operations open now. */
  websocket: WebSocketTransport;
  /** Tells `seen` of every HTTP answer once sent: its request's method and path, status and headers. */
  watch(seen: (answer: { method: string; path: string; status: number; headers: OutgoingHttpHeaders }) => void): void;
  /** POSTs a query to /graphql and returns the parsed body (`data` untyped: tests compare it). */
  query(query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse<any>>;
  /** Stops the gateway (and the mock, when the harness started it). */
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** Options of a mock started for this harness. */
  mock?: MockUpstreamOptions;
  /** A mock to share (e.g. between two gateways); not closed by this harness. */
  sharedMock?: MockUpstream;
  /** Environment variables of the gateway's configuration. */
  env?: Record<string, string>;
  /** Overrides of the upstream settings derived from the mock (e.g. a wrong secret). */
  upstream?: Partial<UpstreamConfig>;
  /** A built example page to serve at /demo (main.ts passes dist/web in demo mode). Default: none. */
  demoPageDirectory?: string;
  /** The gateway's wall clock (token lifetime and backoff), in ms since the epoch. Default the system's. */
  wallClock?: () => number;
  /** WebSocket pings' interval, in ms (attachWebSocket's `keepAliveMs`). Default its own. */
  keepAliveMs?: number;
  /** The gateway's yoga plugins, filtered or reordered (createGateway's test hook). Default: as wired. */
  plugins?: GatewayDependencies['plugins'];
}

/** A clock whose monotonic face starts at `start` and moves by `advance`; its wall face is `wall`. */
export function createManualClock(start = 1_000_000, wall: () => number = systemClock.wall): ManualClock {
  let now = start;
  return { monotonic: () => now, wall, advance: (ms) => void (now += ms) };
}

export async function startGateway(options: HarnessOptions = {}): Promise<Harness> {
  const mock = options.sharedMock ?? (await createMockUpstream(options.mock));
  const config = loadConfig({ LOG_LEVEL: 'debug', ...options.env });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const clock = createManualClock(undefined, options.wallClock);
  const logger = createLogger('debug', sink, { traceIds: config.tracing !== undefined });
  const gateway = createGateway(
    {
      ...config,
      upstream: { ...upstreamConfigFor(mock), ...options.upstream },
    },
    { logger, clock, demoPageDirectory: options.demoPageDirectory, plugins: options.plugins },
  );
  const server = await listen(gateway.serve, { ...config, arrive: gateway.arrive, admit: gateway.admitBody, port: 0, host: '127.0.0.1' });
  const websocket = attachWebSocket(server.server, gateway, config, { logger, keepAliveMs: options.keepAliveMs });

  return {
    mock,
    url: server.url,
    wsUrl: `${server.url.replace(/^http/, 'ws')}/graphql`,
    clock,
    logs,
    gateway,
    websocket,
    watch(seen) {
      server.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
        res.once('finish', () => seen({ method: req.method ?? 'GET', path: new URL(req.url ?? '/', server.url).pathname, status: res.statusCode, headers: res.getHeaders() }));
      });
    },
    async query(query, variables) {
      const response = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
        body: JSON.stringify({ query, variables }),
      });
      return (await response.json()) as GraphQLResponse;
    },
    async close() {
      await websocket.close();
      await server.close();
      await gateway.close();
      if (!options.sharedMock) await mock.close();
    },
  };
}

/** Upstream API calls by path since the last reset, token endpoint excluded. */
export function callsByPath(mock: MockUpstream): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const entry of mock.callLog()) {
    if (entry.path === '/oauth/token') continue;
    counts[entry.path] = (counts[entry.path] ?? 0) + 1;
  }
  return counts;
}
