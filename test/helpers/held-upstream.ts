/**
 * A pass-through in front of the mock upstream that holds the requests to chosen paths until the
 * test releases them: a call that is "slow" for exactly as long as the test needs, so a test can
 * observe what happens while it is pending without racing a latency.
 */
import { createServer, request as forward, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMockUpstream } from '../../src/mock-upstream/index.js';
import { startGateway, type Harness, type HarnessOptions } from './gateway.js';

export interface HeldUpstream {
  /** Base URL to give the gateway as its upstream (`upstream.baseUrl`). */
  url: string;
  /** Holds every request to `path` from now on, until `release(path)`. */
  hold(path: string): void;
  /** Lets the held requests to `path` (and later ones) through. */
  release(path: string): void;
  /** Requests to `path` waiting right now. */
  waiting(path: string): number;
  /** Requests to `path` let through so far. */
  passed(path: string): number;
  close(): Promise<void>;
}

export async function createHeldUpstream(target: string): Promise<HeldUpstream> {
  const gates = new Map<string, { promise: Promise<void>; open: () => void; waiting: number }>();
  const passed = new Map<string, number>();
  const server = createServer((req, res) => void pass(req, res));

  async function pass(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://held').pathname;
    const gate = gates.get(path);
    if (gate !== undefined) {
      gate.waiting += 1;
      await gate.promise;
      gate.waiting -= 1;
    }
    passed.set(path, (passed.get(path) ?? 0) + 1);
    const upstream = forward(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const held: HeldUpstream = {
    url: `http://127.0.0.1:${port}`,
    hold(path) {
      let open = () => {};
      const promise = new Promise<void>((resolve) => (open = resolve));
      gates.set(path, { promise, open, waiting: 0 });
    },
    release(path) {
      gates.get(path)?.open();
      gates.delete(path);
    },
    waiting: (path) => gates.get(path)?.waiting ?? 0,
    passed: (path) => passed.get(path) ?? 0,
    async close() {
      for (const path of [...gates.keys()]) held.release(path);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return held;
}

/** A gateway whose upstream calls pass through a `HeldUpstream` in front of its own mock. */
export interface HeldGateway {
  h: Harness;
  held: HeldUpstream;
  /** The code of the mock's first site. */
  site: string;
  /** Stops the gateway, the pass-through and the mock. */
  close(): Promise<void>;
}

export async function startHeldGateway(options: HarnessOptions = {}): Promise<HeldGateway> {
  const mock = await createMockUpstream(options.mock);
  const held = await createHeldUpstream(mock.url);
  const h = await startGateway({ ...options, sharedMock: mock, upstream: { baseUrl: held.url } });
  return {
    h,
    held,
    site: mock.catalog.sites[0]!.code,
    async close() {
      await h.close();
      await held.close();
      await mock.close();
    },
  };
}
