/**
 * An upgrade refused before it becomes a socket is refused as an HTTP request is: the same
 * refusal of the admission (code, status, message, headers), written as plain HTTP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { ERRORS } from '../../../src/base/errors.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { upgrade } from '../../helpers/websocket.js';

let h: Harness | undefined;
const opened: WebSocket[] = [];
afterEach(async () => {
  opened.splice(0).forEach((ws) => ws.terminate());
  await h?.close();
  h = undefined;
});

describe('a refused WebSocket upgrade', () => {
  it('over the rate limit gets the refusal an HTTP request over it gets: code, message and Retry-After', async () => {
    // The clock stands still: both refusals name the same wait.
    h = await startGateway({ env: { RATE_LIMIT_PER_MINUTE: '1' } });
    const first = await upgrade(h.wsUrl);
    if (!('opened' in first)) throw new Error(`refused with ${first.status}`);
    opened.push(first.opened);

    const refused = await upgrade(h.wsUrl);
    const overHttp = await fetch(`${h.url}/graphql?query=%7B__typename%7D`);
    const answer = { status: overHttp.status, retryAfter: overHttp.headers.get('retry-after'), body: await overHttp.json() };
    expect(answer.body).toEqual({ errors: [{ message: expect.stringMatching(/^Too many requests: at most 1 per minute; retry in \d+ s$/), extensions: { code: 'RATE_LIMITED' } }] });
    expect(refused).toMatchObject({ status: answer.status, headers: { 'retry-after': answer.retryAfter, 'cache-control': 'no-store' }, body: answer.body });
  });

  it('to another path gets 404 NOT_FOUND with the registry\'s status and the body every refusal has', async () => {
    h = await startGateway();
    const refused = await upgrade(h.wsUrl.replace(/\/graphql$/, '/x/graphql'));
    expect(refused).toMatchObject({
      status: ERRORS.NOT_FOUND.status,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store', connection: 'close' },
      body: { errors: [{ message: 'GraphQL over WebSocket is served at /graphql only', extensions: { code: 'NOT_FOUND' } }] },
    });
  });
});
