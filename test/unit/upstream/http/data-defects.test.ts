import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../../src/base/clock.js';
import type { RawAnswer } from '../../../../src/mock-upstream/index.js';
import { createUpstreamClient } from '../../../../src/upstream/http/client.js';
import { UpstreamError } from '../../../../src/upstream/errors.js';
import { TEST_TIMEOUT_MS, rejectionOf, startUpstream, type StartedUpstream } from '../../../helpers/upstream.js';
import { startRawServer, type RawServer } from '../../../helpers/raw-server.js';

const PATH = '/api/products/list';

let upstream: StartedUpstream | undefined;
let raw: RawServer | undefined;

afterEach(async () => {
  await upstream?.close();
  await raw?.close();
  upstream = undefined;
  raw = undefined;
});

/**
 * A client that shows each defect's own error: no retries (a one-off defect would be retried
 * away) and a breaker that never opens (a dozen defects in a row on one path would open it).
 */
async function start(): Promise<StartedUpstream> {
  upstream = await startUpstream({ client: { retries: 0, breakerMinimumCalls: 1000, maxBodyBytes: 64 * 1024 } });
  return upstream;
}

describe('malformed upstream data', () => {
  it.each<[string, RawAnswer]>([
    ['no code', { body: '{"msg":"no code here","result":{"items":[],"total":0}}' }],
    ['a code that is a word', { body: '{"code":"zero","result":{}}' }],
    ['a code that is a boolean', { body: '{"code":false,"result":{}}' }],
    ['a code that is a fraction', { body: '{"code":0.5,"result":{}}' }],
    ['a code that is null', { body: '{"code":null,"result":{}}' }],
    ['a body that is not JSON', { body: '<html>oops</html>', contentType: 'text/html' }],
    ['truncated JSON', { body: '{"code":0,"result":{"items":[{"goodsCode":"G1"' }],
    ['an empty body', { body: '' }],
    ['a top-level array', { body: '[{"code":0}]' }],
    ['a top-level string', { body: '"code 0"' }],
    ['a top-level number', { body: '0' }],
    ['a top-level null', { body: 'null' }],
    ['garbage with HTTP 500', { status: 500, body: 'Internal Server Error', contentType: 'text/plain' }],
    ['a declared body over maxBodyBytes', { body: `{"code":0,"result":"${'x'.repeat(70 * 1024)}"}` }],
  ])('rejects %s with UPSTREAM_UNAVAILABLE and keeps serving', async (_what, answer) => {
    const { client, mock } = await start();
    mock.fault(PATH, { raw: answer }, { times: 1 });

    const error = await rejectionOf(client.get(PATH, { page: 1 }));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', path: PATH, status: answer.status ?? 200 });
    await expect(client.get(PATH, { page: 1 })).resolves.toMatchObject({ total: mock.catalog.products.length });
  });

  it('resolves a success envelope without result as undefined, and a null result as null', async () => {
    const { client, mock } = await start();
    mock.fault(PATH, { raw: { body: '{"code":0,"msg":"","timestamp":1}' } }, { times: 1 });
    mock.fault('/api/product/detail', { raw: { body: '{"code":"0","result":null}' } }, { times: 1 });

    await expect(client.get(PATH)).resolves.toBeUndefined();
    await expect(client.get('/api/product/detail', { goodsCode: 'g1' })).resolves.toBeNull();
  });

  it('rejects a streamed body that grows over maxBodyBytes without a declared length', async () => {
    raw = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }); // chunked: no content-length
      res.write(`{"code":0,"result":"${'x'.repeat(600)}`);
      setTimeout(() => res.end(`${'y'.repeat(600)}"}`), 20);
    });
    const tokens = { getToken: async () => 'raw-token', invalidate: () => {}, tokenRequests: 0, close: async () => {} };
    const client = createUpstreamClient({ baseUrl: raw.url, timeoutMs: TEST_TIMEOUT_MS, tokens, maxBodyBytes: 1000, clock: systemClock });

    await expect(client.get(PATH)).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status: 200, transient: false });
    expect(raw.requests).toHaveLength(1);
    await client.close();
  });
});
