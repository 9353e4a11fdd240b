/**
 * The bench's handle on the mock upstream process (`mock-process.ts`): start it pinned to the
 * load generator's core, then ask it for counters, call logs, token expiry and stock changes over IPC.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import type { MutateStockOptions, StockChange } from '../../src/mock-upstream/index.js';
import { LOAD_CORE, ROOT } from '../config.js';
import type { LocatedSite } from '../workloads/catalog-index.js';
import type { ServingKey, ServingScenario } from '../workloads/serving.js';
import { pinned } from './child.js';

/** One upstream request: path, arrival and finish of its answer (ms since the epoch). */
export interface Span {
  path: string;
  start: number;
  finish: number;
}

/** Commands the mock process understands. */
export type MockCommand =
  | { name: 'calls' }
  | { name: 'log' }
  | { name: 'reset' }
  | { name: 'expireAllTokens' }
  | { name: 'tokenTimeouts' }
  | { name: 'distinctGoods'; sites: number }
  | { name: 'expected'; scenario: ServingScenario; keys: ServingKey[] }
  | { name: 'mutateStock'; options: MutateStockOptions }
  | { name: 'detailCallsBySite' };

/** Addresses, credentials and the catalog's keys, sent once the mock listens. */
export interface MockInfo {
  url: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  siteCodes: string[];
  goodsCodes: string[];
  cityCodes: string[];
  points: number;
  lanes: number;
  /** Every site with coordinates: where it is and the goods codes its lanes hold in stock. */
  locatedSites: LocatedSite[];
}

/** The running mock upstream. */
export interface BenchMock extends MockInfo {
  /** Requests so far by path, token endpoint (`/oauth/token`) included. */
  calls(): Promise<Record<string, number>>;
  /** The mock's call log (path, arrival) and the answer spans since the last reset. */
  log(): Promise<{ log: Array<{ path: string; at: number }>; spans: Span[] }>;
  reset(): Promise<void>;
  expireAllTokens(): Promise<void>;
  /** "token is timeout" answers sent since the last reset. */
  tokenTimeouts(): Promise<number>;
  /**
   * Resolves once no new API call has arrived for 600 ms (at most `timeoutMs`): the requests a
   * load run abandoned at its end have then finished what they started upstream.
   */
  untilQuiet(timeoutMs?: number): Promise<void>;
  /** Distinct goods codes in the lanes of the first `sites` sites. */
  distinctGoods(sites: number): Promise<number>;
  /** The `data` a correct answer to each of `keys` of `scenario` carries, from the catalog the mock serves (`../workloads/expected.ts`). */
  expected(scenario: ServingScenario, keys: readonly ServingKey[]): Promise<unknown[]>;
  /** Change the stock of random lanes (the mock's `mutateStock`); the changes made. */
  mutateStock(options: MutateStockOptions): Promise<StockChange[]>;
  /** Site-detail calls since the last reset, by `siteCode`. */
  detailCallsBySite(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

/** Start the mock upstream process; resolves once it listens. */
export async function startMock(): Promise<BenchMock> {
  const [command, args] = pinned(LOAD_CORE, process.execPath, ['--import', 'tsx', 'bench/processes/mock-process.ts']);
  // Advanced serialization keeps NaN (an answer not finished) as NaN rather than null.
  const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' });
  const ask = createAsk(child);
  const info = (await ask(undefined)) as MockInfo;
  return {
    ...info,
    calls: () => ask({ name: 'calls' }) as Promise<Record<string, number>>,
    log: () => ask({ name: 'log' }) as ReturnType<BenchMock['log']>,
    reset: async () => void (await ask({ name: 'reset' })),
    expireAllTokens: async () => void (await ask({ name: 'expireAllTokens' })),
    tokenTimeouts: () => ask({ name: 'tokenTimeouts' }) as Promise<number>,
    distinctGoods: (sites) => ask({ name: 'distinctGoods', sites }) as Promise<number>,
    expected: (scenario, keys) => ask({ name: 'expected', scenario, keys: [...keys] }) as Promise<unknown[]>,
    mutateStock: (options) => ask({ name: 'mutateStock', options }) as Promise<StockChange[]>,
    detailCallsBySite: () => ask({ name: 'detailCallsBySite' }) as Promise<Record<string, number>>,
    untilQuiet: (timeoutMs = 60_000) => untilQuiet(() => ask({ name: 'calls' }) as Promise<Record<string, number>>, timeoutMs),
    close: () => new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.disconnect();
    }),
  };
}

/** Total API calls (every path but the token endpoint) in a `calls()` answer. */
export function apiCalls(byPath: Record<string, number>): number {
  return Object.entries(byPath).reduce((sum, [path, n]) => (path === '/oauth/token' ? sum : sum + n), 0);
}

/** Calls per path between two `calls()` answers. */
export function callsBetween(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(after)
    .map(([path, n]) => [path, n - (before[path] ?? 0)] as const)
    .filter(([, n]) => n > 0));
}

// Private: poll the API call total every 200 ms until it has not moved for three polls.
async function untilQuiet(calls: () => Promise<Record<string, number>>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = -1;
  let quietPolls = 0;
  while (quietPolls < 3 && Date.now() < deadline) {
    const total = apiCalls(await calls());
    quietPolls = total === last ? quietPolls + 1 : 0;
    last = total;
    await sleep(200);
  }
}

// Private: request/answer over IPC. Message 0 is the mock's unsolicited `info` on start-up.
function createAsk(child: ChildProcess): (command: MockCommand | undefined) => Promise<unknown> {
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  child.on('message', (message: { id: number; value?: unknown; error?: string }) => {
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (message.error !== undefined) waiter?.reject(new Error(`mock upstream: ${message.error}`));
    else waiter?.resolve(message.value);
  });
  child.once('exit', (code) => {
    for (const waiter of pending.values()) waiter.reject(new Error(`mock upstream exited (${code})`));
  });
  return (command) => new Promise((resolve, reject) => {
    const id = command === undefined ? 0 : nextId++;
    pending.set(id, { resolve, reject });
    if (command !== undefined) child.send({ id, command });
  });
}
