/**
 * The refusal writer (src/admission/refusal-writer.ts) on real sockets: the same status, headers and
 * body whether it writes through Node's response or by hand on a raw socket.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { refusal } from '../../../src/admission/refusal.js';
import { writeRawRefusal, writeRefusal } from '../../../src/admission/refusal-writer.js';

const LIMITED = refusal('RATE_LIMITED', 'Too many requests: at most 1 per minute; retry in 7 s', { 'retry-after': '7' });
const BODY = JSON.stringify({ errors: [{ message: LIMITED.message, extensions: { code: 'RATE_LIMITED' } }] });

let server: Server | HttpServer | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

async function listening(made: Server | HttpServer): Promise<number> {
  server = made;
  await new Promise<void>((resolve) => made.listen(0, '127.0.0.1', resolve));
  return (made.address() as AddressInfo).port;
}

/** What a client reads on a connection to `port` after sending `request`, until the server closes it. */
function exchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    socket.on('data', (chunk) => chunks.push(chunk)).on('error', reject).on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
  });
}

describe('the refusal writer', () => {
  it('writes a refusal on a raw socket as a whole HTTP/1.1 answer: status line, headers, then the body every refusal has', async () => {
    const port = await listening(createServer((socket) => socket.once('data', () => writeRawRefusal(socket, LIMITED))));
    const answer = await exchange(port, 'GET /graphql HTTP/1.1\r\nhost: x\r\n\r\n');
    expect(answer).toBe(
      `HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\ncontent-length: ${BODY.length}\r\ncache-control: no-store\r\n`
      + `retry-after: 7\r\nconnection: close\r\n\r\n${BODY}`,
    );
  });

  it('leaves out the body of an answer to a HEAD, its length still said', async () => {
    const port = await listening(createServer((socket) => socket.once('data', () => writeRawRefusal(socket, LIMITED, { head: true }))));
    const answer = await exchange(port, 'HEAD /graphql HTTP/1.1\r\nhost: x\r\n\r\n');
    expect(answer.endsWith(`content-length: ${BODY.length}\r\ncache-control: no-store\r\nretry-after: 7\r\nconnection: close\r\n\r\n`)).toBe(true);
  });

  it('answers through Node\'s response with the same status, headers and body, closing the connection', async () => {
    const port = await listening(createHttpServer((request, response) => writeRefusal(response, LIMITED, { 'x-request-id': 'r-1' })));
    const answer = await fetch(`http://127.0.0.1:${port}/graphql`);
    expect(answer.status).toBe(429);
    expect(Object.fromEntries(['content-type', 'content-length', 'cache-control', 'connection', 'retry-after', 'x-request-id'].map((name) => [name, answer.headers.get(name)])))
      .toEqual({ 'content-type': 'application/json', 'content-length': String(BODY.length), 'cache-control': 'no-store', connection: 'close', 'retry-after': '7', 'x-request-id': 'r-1' });
    expect(await answer.text()).toBe(BODY);
  });
});
