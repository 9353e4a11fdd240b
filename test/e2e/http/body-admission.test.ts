/**
 * The API key and the rate limit decide before a request's body is read or decoded: a client
 * without a key, or over its limit, gets its refusal while its body is still unsent, and the
 * gateway decodes nothing of it. The verdict is taken once for the request, and every later step
 * (the GraphQL road, a batch's) reads it instead of counting the request again.
 */
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { post } from '../../helpers/http.js';
import { startRedis, type TestRedis } from '../../helpers/redis.js';
import { BR_BOMB, chunk, chunkedPost, LAST_CHUNK, openRaw, startBodyGateway, type BodyGateway, type RawConnection } from './raw-body.js';

const KEY = 'body-admission-key-0001';
const ADMIN_KEY = 'body-admission-admin-0002';
const CITIES = '{ cities { total } }';

describe('admission before the body', () => {
  let g: BodyGateway | undefined;
  let redis: TestRedis | undefined;
  const open: RawConnection[] = [];
  afterEach(async () => {
    for (const connection of open.splice(0)) connection.destroy();
    await g?.close();
    await redis?.close();
    g = undefined;
    redis = undefined;
  });
  const raw = (headers: Record<string, string>) => {
    const connection = openRaw(g!.server.url, chunkedPost(headers));
    open.push(connection);
    return connection;
  };

  it('refuses a br bomb without a key with 401 before its body is sent, holding no decoded byte', async () => {
    g = await startBodyGateway({ env: { GATEWAY_API_KEYS: KEY, RATE_LIMIT_PER_MINUTE: '60' } });
    const refused: Array<Record<string, string>> = [{ 'content-encoding': 'br' }, { 'content-encoding': 'br', 'x-api-key': 'not-a-key-of-this-gateway' }];
    for (const headers of refused) {
      // Headers only: the bomb is never sent, so an answer can only come from the headers.
      const connection = raw(headers);
      const answer = await connection.answer;
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toMatch(/^Bearer realm="vending-graph"/);
      expect(answer.headers.connection).toBe('close');
      expect(answer.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
      // The bomb sent after its refusal is never decoded: the connection closes unread.
      connection.write(chunk(BR_BOMB));
      await connection.closed;
      expect(g.server.decodingBytes()).toBe(0);
    }
    expect(g.h.mock.calls()).toBe(0);
  });

  it('tells a client that sent Expect: 100-continue to send its body only once it is admitted', async () => {
    g = await startBodyGateway({ env: { GATEWAY_API_KEYS: KEY } });
    const body = JSON.stringify({ query: CITIES });
    const head = (key: Record<string, string>) =>
      chunkedPost({ ...key, expect: '100-continue', 'content-length': String(body.length) }).replace('transfer-encoding: chunked\r\n', '');
    const refused = openRaw(g.server.url, head({}));
    open.push(refused);
    const answer = await refused.answer;
    expect([answer.interim, answer.status]).toEqual([[], 401]);
    const admitted = openRaw(g.server.url, head({ 'x-api-key': KEY }));
    open.push(admitted);
    admitted.write(body);
    const served = await admitted.answer;
    expect([served.interim, served.status]).toEqual([[100], 200]);
  });

  it('refuses a client over its rate limit with 429 and Retry-After before its body is sent', async () => {
    g = await startBodyGateway({ env: { GATEWAY_API_KEYS: KEY, RATE_LIMIT_PER_MINUTE: '1' } });
    expect((await post(withUrl(g), CITIES, { headers: { 'x-api-key': KEY } })).status).toBe(200);
    const connection = raw({ 'content-encoding': 'br', 'x-api-key': KEY });
    const answer = await connection.answer;
    expect(answer.status).toBe(429);
    expect(answer.headers['retry-after']).toBe('60');
    expect(answer.body).toEqual({ errors: [{ message: 'Too many requests: at most 1 per minute; retry in 60 s', extensions: { code: 'RATE_LIMITED' } }] });
    expect(g.server.decodingBytes()).toBe(0);
  });

  it('counts a request once, whichever steps read its verdict: a refused document takes one token', async () => {
    g = await startBodyGateway({ env: { GATEWAY_API_KEYS: KEY, RATE_LIMIT_PER_MINUTE: '3' } });
    const h = withUrl(g);
    const send = (query: string) => post(h, query, { headers: { 'x-api-key': KEY } });
    // A syntax error: admitted before its body, then refused by its parse.
    expect((await send('{ cities { ')).status).toBe(400);
    expect((await send(CITIES)).status).toBe(200);
    expect((await send(CITIES)).status).toBe(200);
    expect((await send(CITIES)).status).toBe(429);
  });

  it('reads and decodes the body of an admitted request, compressed or plain, and of one to an open path', async () => {
    g = await startBodyGateway({ env: { GATEWAY_API_KEYS: KEY, RATE_LIMIT_PER_MINUTE: '60' } });
    const body = Buffer.from(JSON.stringify({ query: CITIES }));
    const admitted: Array<Record<string, string>> = [{ 'x-api-key': KEY }, { authorization: `Bearer ${KEY}`, 'content-encoding': 'gzip' }];
    for (const headers of admitted) {
      const connection = raw(headers);
      const coded = headers['content-encoding'] === 'gzip' ? gzipSync(body) : body;
      connection.write(Buffer.concat([chunk(coded), Buffer.from(LAST_CHUNK)]));
      const answer = await connection.answer;
      expect([answer.status, answer.body.data]).toEqual([200, { cities: { total: expect.any(Number) } }]);
    }
    // /healthz needs no key, with a body or without.
    const health = openRaw(g.server.url, 'POST /healthz HTTP/1.1\r\nHost: x\r\ncontent-length: 2\r\n\r\n{}');
    open.push(health);
    expect((await health.answer).status).toBe(200);
  });

  it('checks /admin/purge against the admin keys alone, before its body', async () => {
    g = await startBodyGateway({ env: { GATEWAY_API_KEYS: KEY, ADMIN_API_KEYS: ADMIN_KEY, RATE_LIMIT_PER_MINUTE: '1' } });
    const purge = (headers: Record<string, string>) => {
      const connection = openRaw(g!.server.url, chunkedPost(headers).replace('POST /graphql', 'POST /admin/purge'));
      open.push(connection);
      return connection;
    };
    // A client key is not an admin key: refused before the body.
    expect((await purge({ 'x-api-key': KEY }).answer).status).toBe(401);
    // An admin key is read in full, and the rate limit does not count it (twice at 1 per minute).
    for (let i = 0; i < 2; i += 1) {
      const admin = purge({ 'x-api-key': ADMIN_KEY });
      admin.write(Buffer.concat([chunk(Buffer.from('{"tags":["sites"]}')), Buffer.from(LAST_CHUNK)]));
      expect((await admin.answer).body).toEqual({ purged: expect.any(Number) });
    }
  });

  it("with Redis, waits for the fleet's verdict with the body unread: 429 before it is sent, and an admitted body read in full", async () => {
    redis = await startRedis();
    g = await startBodyGateway({ env: { REDIS_URL: redis.url, GATEWAY_API_KEYS: KEY, RATE_LIMIT_PER_MINUTE: '2', REDIS_COMMAND_TIMEOUT_MS: '10000' } });
    const connection = raw({ 'x-api-key': KEY, 'content-encoding': 'gzip' });
    connection.write(Buffer.concat([chunk(gzipSync(JSON.stringify({ query: CITIES }))), Buffer.from(LAST_CHUNK)]));
    expect((await connection.answer).status).toBe(200);
    expect((await post(withUrl(g), CITIES, { headers: { 'x-api-key': KEY } })).status).toBe(200);
    const over = raw({ 'x-api-key': KEY, 'content-encoding': 'br' });
    const answer = await over.answer;
    expect([answer.status, answer.body.errors[0].extensions.code]).toEqual([429, 'RATE_LIMITED']);
    expect(g.server.decodingBytes()).toBe(0);
  });
});

// Private: the harness's helpers, aimed at the server under test.
function withUrl(g: BodyGateway) {
  return { ...g.h, url: g.server.url };
}
