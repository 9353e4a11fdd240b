/**
 * Requests Node itself refuses before any handler runs (a URL or headers too large, broken
 * HTTP) get the coded body every other refusal has, not a bare status (found by the client-side
 * fuzzer: a long GET query answered an empty 431).
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';

// Private: sends raw bytes and reads until the server closes the connection.
function raw(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
}

function bodyOf(answer: string): any {
  return JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
}

describe('requests Node refuses', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('answers a URL over the header limit with 431 REQUEST_HEADER_FIELDS_TOO_LARGE, at no upstream cost', async () => {
    h = await startGateway();
    const calls = h.mock.calls();
    const query = encodeURIComponent(`{ cities { total } } # ${'x'.repeat(20_000)}`);
    const response = await fetch(`${h.url}/graphql?query=${query}`);
    expect(response.status).toBe(431);
    expect(((await response.json()) as any).errors[0].extensions.code).toBe('REQUEST_HEADER_FIELDS_TOO_LARGE');
    expect(h.mock.calls()).toBe(calls);
  });

  it('answers a HEAD with a URL over the limit with 431 and no body, as a HEAD answer must be (fuzzer seed 1995133436)', async () => {
    h = await startGateway();
    const path = `/graphql?query=${encodeURIComponent(`{ cities { total } } # ${'x'.repeat(20_000)}`)}`;
    const answer = await raw(h.url, `HEAD ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(answer.startsWith('HTTP/1.1 431 ')).toBe(true);
    expect(answer.slice(answer.indexOf('\r\n\r\n') + 4)).toBe('');
  });

  it('answers on a kept-alive connection that has carried an answer before (fuzzer seed -591347417)', async () => {
    h = await startGateway();
    const { hostname, port } = new URL(h.url);
    const path = `/graphql?query=${encodeURIComponent(`{ cities { total } } # ${'x'.repeat(20_000)}`)}`;
    const answers = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => socket.write('GET /graphql?query=%7B__typename%7D HTTP/1.1\r\nHost: x\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        const first = text === '';
        text += chunk.toString('utf8');
        // Once the first answer is in, the same connection asks again with a URL too long.
        if (first) socket.write(`TRACE ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
      });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answers).toMatch(/^HTTP\/1\.1 200 /);
    const second = answers.slice(answers.lastIndexOf('HTTP/1.1 '));
    expect(second).toMatch(/^HTTP\/1\.1 431 /);
    expect(bodyOf(second).errors[0].extensions.code).toBe('REQUEST_HEADER_FIELDS_TOO_LARGE');
  });

  it('answers broken HTTP with 400 BAD_REQUEST', async () => {
    h = await startGateway();
    const answer = await raw(h.url, 'GET /graphql HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(answer).errors[0].extensions.code).toBe('BAD_REQUEST');
  });
});
