/**
 * An API call that fails for good is one log line that says what to check when the failure
 * carries a cause an operator can act on (a socket error code, an HTML page); an error envelope
 * keeps the plain line, its `upstreamMsg` telling the story.
 */
import { createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { rejectionOf, startUpstream, type StartedUpstream } from '../../../helpers/upstream.js';

let upstream: StartedUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

/** The warn lines of the final failure, parsed. */
function failures(logs: string[]): any[] {
  return logs.map((line) => JSON.parse(line)).filter((line) => line.level === 40 && String(line.msg).startsWith('upstream call failed') && !line.msg.endsWith('retrying'));
}

describe('an API call that fails', () => {
  it('names ECONNREFUSED and UPSTREAM_BASE_URL when nothing listens at the base address', async () => {
    const probe = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => probe.once('listening', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    upstream = await startUpstream({ client: { baseUrl: `http://127.0.0.1:${port}`, retries: 0 } });

    await rejectionOf(upstream.client.get('/api/city/list'));
    const [line] = failures(upstream.logs);
    expect(line).toMatchObject({ path: '/api/city/list', code: 'UPSTREAM_UNAVAILABLE' });
    expect(line.msg).toBe(`upstream call failed: GET /api/city/list failed: ECONNREFUSED; nothing accepts connections at 127.0.0.1:${port}: `
      + 'check the host and port in UPSTREAM_BASE_URL and that the service runs');
    expect(line.check).toEqual(expect.stringContaining('UPSTREAM_BASE_URL'));
  });

  it('keeps the plain line for an error envelope', async () => {
    upstream = await startUpstream({ client: { retries: 0 } });
    upstream.mock.fault('/api/city/list', { envelope: { code: 4001, msg: 'bad request' } });
    await rejectionOf(upstream.client.get('/api/city/list'));
    expect(failures(upstream.logs)).toMatchObject([{ msg: 'upstream call failed', upstreamCode: 4001, upstreamMsg: 'bad request' }]);
  });
});
