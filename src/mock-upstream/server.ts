/**
 * `createMockUpstream`: the vending-machine platform on a local port, faithful to the upstream
 * description (rough edges included), with controls that make it slow, wrong or broken.
 *
 * @example
 * const mock = await createMockUpstream({ behaviour: { errorStatus: 500 } });
 * mock.fault('/api/site/detail', 'token-timeout', { times: 1 });
 * expect(mock.calls('/api/site/detail')).toBe(2);
 */
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { createBehaviour, type Behaviour } from './behaviour.js';
import { createCallCounters, TOKEN_PATH, type CallLogEntry } from './counters.js';
import { generateCatalog, type Catalog, type CatalogOptions } from './data.js';
import { handleRequest, type MockState } from './dispatch.js';
import { createFaultTable, type Fault, type FaultOptions } from './faults.js';
import { createRandom, type Random } from './random.js';
import { startSales, type SalesOptions } from './sales.js';
import { mutateStock, setStock, type MutateStockOptions, type StockChange } from './stock.js';
import { createTokenStore } from './token.js';

/** Options of `createMockUpstream`; all optional. */
export interface MockUpstreamOptions {
  /** TCP port; 0 picks a free one (read it back from `url`). Default 0. */
  port?: number;
  /** Interface to listen on. Default `'127.0.0.1'`. */
  host?: string;
  /** The data to serve (used live, not copied), or options to generate it. Default `generateCatalog()`. */
  catalog?: Catalog | CatalogOptions;
  /** Client id the token endpoint accepts. Default `'demo-client'`. */
  clientId?: string;
  /** Client secret the token endpoint accepts. Default `'demo-secret'`. */
  clientSecret?: string;
  /** Delay before answering every request, token endpoint included, in ms. Default 0. */
  latencyMs?: number;
  /** Lifetime of issued tokens, in seconds (also the `expires_in` sent). Default 7200. */
  tokenLifetimeS?: number;
  /** Overrides of the behaviour defaults (see `Behaviour`). Default: none. */
  behaviour?: Partial<Behaviour>;
  /** Clock of token expiry, timestamps and the call log, ms since the epoch (latency uses real timers). Default `Date.now`. */
  now?: () => number;
  /** Seed of `mutateStock`'s random source: the same seed and catalog make the same changes. Default 1. */
  mutationSeed?: number;
  /** Sell and restock on a timer, as demo mode does. Default: none (stock changes only when a test changes it). */
  sales?: SalesOptions;
}

/** A running mock upstream and its controls. */
export interface MockUpstream {
  /** Base address, e.g. `http://127.0.0.1:54321` (no trailing slash). */
  readonly url: string;
  /** The token endpoint: `url + '/oauth/token'`. */
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The live data: mutate it to simulate change; the next request sees it. */
  readonly catalog: Catalog;
  /** The live behaviour switches; mutate them at any time. */
  readonly behaviour: Behaviour;
  /** Delay before answering every request from now on, in ms (0 = none). */
  setLatency(ms: number): void;
  /** Lifetime in seconds of tokens issued from now on; earlier tokens keep theirs. */
  setTokenLifetime(seconds: number): void;
  /** Every token issued so far is expired from now on (answers become token timeouts). */
  expireAllTokens(): void;
  /** Every token issued, oldest first. */
  issuedTokens(): string[];
  /** Inject `fault` on `path`, or on `'*'` (every path; the exact path wins); `null` removes it. */
  fault(path: string, fault: Fault | null, options?: FaultOptions): void;
  clearFaults(): void;
  /** Set the stock of lane `laneIndex` (0-based) of a point; throws if there is no such lane. */
  setStock(siteCode: string, pointCode: string, laneIndex: number, stock: number): void;
  /** Change the stock of random lanes holding a product, so lanes run out and come back; returns the changes. */
  mutateStock(options?: MutateStockOptions): StockChange[];
  /** Requests received on `path` (no query); without `path`, all but the token endpoint's. */
  calls(path?: string): number;
  /** Most requests seen in flight at once on `path`; without `path`, across all but the token endpoint. */
  maxInFlight(path?: string): number;
  /** Requests open right now (answered or abandoned ones are out once their socket closes); without `path`, API ones. */
  inFlight(path?: string): number;
  /** Token-timeout envelopes answered: expired tokens plus the `token-timeout` fault. */
  tokenTimeoutsSent(): number;
  /** Every request received, in arrival order. */
  callLog(): CallLogEntry[];
  /** Zero `calls`, `maxInFlight`, `tokenTimeoutsSent` and the call log. */
  resetCounters(): void;
  /** Stop listening and destroy every open socket, hung ones included. Idempotent. */
  close(): Promise<void>;
}

/** Start a mock upstream; resolves once it listens. */
export async function createMockUpstream(options: MockUpstreamOptions = {}): Promise<MockUpstream> {
  const now = options.now ?? Date.now;
  const state: MockState = {
    catalog: resolveCatalog(options.catalog),
    behaviour: createBehaviour(options.behaviour),
    clientId: options.clientId ?? 'demo-client',
    clientSecret: options.clientSecret ?? 'demo-secret',
    latencyMs: checkLatency(options.latencyMs ?? 0),
    now,
    tokens: createTokenStore(options.tokenLifetimeS ?? 7200, now),
    faults: createFaultTable(),
    counters: createCallCounters(),
    timers: new Set(),
  };
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => void handleRequest(state, req, res));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const url = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  const sales = options.sales && options.sales.perMinute > 0 ? startSales(state.catalog, options.sales) : undefined;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    sales?.stop();
    closing ??= new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      for (const timer of state.timers) clearTimeout(timer);
      state.timers.clear();
      for (const socket of sockets) socket.destroy();
    });
    return closing;
  };
  return controls(state, createRandom(options.mutationSeed ?? 1), url, close);
}

// Private: the control surface over the shared state.
function controls(state: MockState, random: Random, url: string, close: () => Promise<void>): MockUpstream {
  const { counters } = state;
  return {
    url,
    tokenUrl: url + TOKEN_PATH,
    clientId: state.clientId,
    clientSecret: state.clientSecret,
    catalog: state.catalog,
    behaviour: state.behaviour,
    setLatency: (ms) => { state.latencyMs = checkLatency(ms); },
    setTokenLifetime: (seconds) => state.tokens.setLifetime(seconds),
    expireAllTokens: () => state.tokens.expireAll(),
    issuedTokens: () => state.tokens.issued(),
    fault: (path, fault, options) => state.faults.set(path, fault, options),
    clearFaults: () => state.faults.clear(),
    setStock: (siteCode, pointCode, laneIndex, stock) => setStock(state.catalog, siteCode, pointCode, laneIndex, stock),
    mutateStock: (mutation) => mutateStock(state.catalog, random, mutation),
    calls: (path) => counters.calls(path),
    maxInFlight: (path) => counters.maxInFlight(path),
    inFlight: (path) => counters.inFlight(path),
    tokenTimeoutsSent: () => counters.tokenTimeoutsSent(),
    callLog: () => counters.callLog(),
    resetCounters: () => counters.reset(),
    close,
  };
}

// Private: a catalog is recognised by its arrays; anything else is generator options.
function resolveCatalog(catalog: Catalog | CatalogOptions | undefined): Catalog {
  if (catalog && Array.isArray((catalog as Catalog).sites)) return catalog as Catalog;
  return generateCatalog(catalog as CatalogOptions | undefined);
}

// Private: latency is a finite number of ms, 0 or more.
function checkLatency(ms: number): number {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`latency must be a number of ms >= 0, but got: ${ms}`);
  return ms;
}

// Private: listen and return the base URL with the actual port.
function listen(server: Server, port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      if (address === null || typeof address === 'string') {
        reject(new Error(`mock upstream: unexpected listen address: ${String(address)}`));
        return;
      }
      const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve(`http://${hostPart}:${address.port}`);
    });
  });
}
