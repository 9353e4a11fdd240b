/**
 * Request bodies over raw sockets, for what a client library would not do: send the headers and
 * hold the body back, stall halfway through a chunked body, or send a compressed stream that never
 * ends. Each connection's first answer is read as it comes, while the request is still unsent.
 */
import { connect, type Socket } from 'node:net';
import * as zlib from 'node:zlib';
import { loadConfig } from '../../../src/base/config/config.js';
import { listen, type ListenOptions, type RunningServer } from '../../../src/doors/http/server.js';
import { startGateway, type Harness, type HarnessOptions } from '../../helpers/gateway.js';
import type { GatewayRequest } from '../../../src/request/request.js';

/** 14 bytes of brotli that decode to 1,040,000 spaces (under the 1 MiB body limit): the probe's bomb. */
export const BR_BOMB = zlib.brotliCompressSync(Buffer.alloc(1_040_000, 0x20));

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body parsed as JSON. */
  body: any;
  /** The statuses of the interim answers before it (`100 Continue`). */
  interim: number[];
}

export interface RawConnection {
  write(bytes: string | Buffer): void;
  /** The first answer, as soon as it is whole, whatever the request still has to send. */
  answer: Promise<RawAnswer>;
  /** Resolves once the server has closed the connection. */
  closed: Promise<void>;
  destroy(): void;
}

/** Opens a connection to `url` and writes `head` (a request line and headers, ending in an empty line). */
export function openRaw(url: string, head: string): RawConnection {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  socket.write(head); // queued until connected, before anything the test writes next
  socket.on('error', () => {}); // a reset is a close too
  let received = Buffer.alloc(0);
  const answer = new Promise<RawAnswer>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const parsed = parseAnswer(received);
      if (parsed === undefined) return;
      socket.off('data', onData);
      resolve(parsed);
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error(`closed without a whole answer: ${JSON.stringify(received.toString('latin1'))}`)));
  });
  answer.catch(() => {}); // read by the tests that expect one
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    write: (bytes) => void (socket.writable && socket.write(bytes)),
    answer,
    closed,
    destroy: () => socket.destroy(),
  };
}

/** The head of a chunked POST to /graphql with `headers` added (e.g. `content-encoding`, `x-api-key`). */
export function chunkedPost(headers: Record<string, string> = {}): string {
  const lines = Object.entries({ 'content-type': 'application/json', accept: 'application/graphql-response+json', 'transfer-encoding': 'chunked', ...headers });
  return `POST /graphql HTTP/1.1\r\nHost: x\r\n${lines.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
}

/** `bytes` as one chunk of a chunked body. */
export function chunk(bytes: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);
}

/** The last chunk of a chunked body. */
export const LAST_CHUNK = '0\r\n\r\n';

// Private: the answer in `bytes` once its head and its whole body (by Content-Length) are in,
// after any interim (1xx) answers.
function parseAnswer(bytes: Buffer, interim: number[] = []): RawAnswer | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(statusLine!.split(' ')[1]);
  if (status < 200) return parseAnswer(bytes.subarray(end + 4), [...interim, status]);
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  const length = Number(headers['content-length']);
  if (!Number.isInteger(length)) throw new Error(`an answer without Content-Length: ${statusLine}`);
  if (bytes.length < end + 4 + length) return undefined;
  return { status, headers, body: JSON.parse(bytes.subarray(end + 4, end + 4 + length).toString('utf8')), interim };
}

export interface BodyGateway {
  h: Harness;
  /** The server under test: the harness's gateway behind `listen` with the test's options. */
  server: RunningServer;
  close(): Promise<void>;
}

/**
 * A harnessed gateway (its mock, its configuration from `env`) served by a server of the test's
 * own, so that the test sets the server's timeouts and reads its decoding bytes.
 */
export async function startBodyGateway(options: HarnessOptions, listenOptions: Partial<Omit<ListenOptions<GatewayRequest>, 'admit' | 'arrive'>> = {}): Promise<BodyGateway> {
  const h = await startGateway(options);
  const config = loadConfig({ ...options.env });
  const server = await listen(h.gateway.serve, { ...config, arrive: h.gateway.arrive, admit: h.gateway.admitBody, port: 0, host: '127.0.0.1', ...listenOptions });
  return {
    h,
    server,
    async close() {
      await server.close(0);
      await h.close();
    },
  };
}
