/**
 * A handler that throws (a bug) runs inside the request body's last event (doors/http/server.ts),
 * where a throw would end the process: its client gets a coded 500, the error is reported, and
 * the server goes on answering.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { listen, type RunningServer } from '../../../../src/doors/http/server.js';

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close(0);
  server = undefined;
});

describe('a handler that throws', () => {
  it.each(['POST', 'GET'])('answers a %s with a coded 500, reports the error and serves the next request', async (method) => {
    const reported: unknown[] = [];
    let calls = 0;
    server = await listen((_request, response) => {
      calls += 1;
      if (calls === 1) throw new Error('a bug in the handler');
      response.end('ok');
    }, { port: 0, host: '127.0.0.1', onError: (error) => reported.push(error) });
    const body = method === 'POST' ? '{"query":"{ __typename }"}' : undefined;
    const failed = await fetch(server.url, { method, body });
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ errors: [{ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
    expect(reported).toEqual([new Error('a bug in the handler')]);
    const next = await fetch(server.url, { method, body });
    expect([next.status, await next.text()]).toEqual([200, 'ok']);
  });
});
