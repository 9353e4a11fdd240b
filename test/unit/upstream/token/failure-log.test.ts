/**
 * A failing token endpoint is one log line an operator can act on: the host, what went wrong
 * (the socket's error code, a TLS code, the HTTP status, an HTML page) and what to check; never
 * the client secret.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../../src/base/clock.js';
import { createMockUpstream, type MockUpstream } from '../../../../src/mock-upstream/index.js';
import { createTokenManager } from '../../../../src/upstream/token/manager.js';
import { makeTestCertificates } from '../../../helpers/test-certificates.js';
import { TEST_TIMEOUT_MS, captureLogs, rejectionOf } from '../../../helpers/upstream.js';

const SECRET = 'token-secret-never-in-a-log';
const closers: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** The one line logged when a token request to `tokenUrl` fails, parsed. */
async function failureLine(tokenUrl: string, clientSecret = SECRET): Promise<Record<string, any>> {
  const { logs, logger } = captureLogs();
  const tokens = createTokenManager({ tokenUrl, clientId: 'client', clientSecret, clientAuth: 'basic', timeoutMs: TEST_TIMEOUT_MS, clock: systemClock, logger });
  closers.push(() => tokens.close());
  await rejectionOf(tokens.getToken());
  expect(logs).toHaveLength(1);
  expect(logs[0]).not.toContain(clientSecret);
  return JSON.parse(logs[0]!);
}

async function mockUpstream(): Promise<MockUpstream> {
  const mock = await createMockUpstream();
  closers.push(() => mock.close());
  return mock;
}

describe('a token request that fails', () => {
  it('names the host and ECONNREFUSED when nothing listens there', async () => {
    const probe = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => probe.once('listening', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));

    const line = await failureLine(`http://127.0.0.1:${port}/oauth/token`);
    expect(line).toMatchObject({ level: 40, host: `127.0.0.1:${port}`, errorCode: 'ECONNREFUSED', code: 'UPSTREAM_UNAVAILABLE' });
    expect(line.msg).toBe(`token request to 127.0.0.1:${port} failed: ECONNREFUSED; nothing accepts connections at 127.0.0.1:${port}: `
      + 'check the host and port in OAUTH_TOKEN_URL and that the service runs');
  });

  it('names a host that does not resolve', async () => {
    const line = await failureLine('http://no-such-host.invalid/oauth/token');
    expect(line.host).toBe('no-such-host.invalid');
    expect(line.errorCode).toMatch(/^(ENOTFOUND|EAI_AGAIN)$/);
    expect(line.msg).toContain('no-such-host.invalid does not resolve: check the host name in OAUTH_TOKEN_URL');
  });

  it('names the TLS error code of a certificate this process does not trust', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vending-graph-token-tls-'));
    closers.push(() => rmSync(dir, { recursive: true, force: true }));
    const certificates = await makeTestCertificates(dir);
    const server: HttpsServer = createHttpsServer({ cert: readFileSync(certificates.certFile), key: readFileSync(certificates.keyFile) }, (_req, res) => res.end('{}'));
    server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    closers.push(() => new Promise((resolve) => server.close(resolve)));
    const { port } = server.address() as AddressInfo;

    const line = await failureLine(`https://127.0.0.1:${port}/oauth/token`);
    expect(line.errorCode).toMatch(/^(UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY|SELF_SIGNED_CERT_IN_CHAIN)$/);
    expect(line.msg).toContain(`failed: ${line.errorCode}; TLS with 127.0.0.1:${port} failed: check its certificate (a private CA goes in NODE_EXTRA_CA_CERTS)`);
  });

  it('names the HTTP status and the settings to check when the credentials are refused', async () => {
    const mock = await mockUpstream();
    const line = await failureLine(mock.tokenUrl, 'a-wrong-secret-never-in-a-log');
    const host = new URL(mock.tokenUrl).host;
    expect(line).toMatchObject({ host, status: 401, code: 'UPSTREAM_AUTH_FAILED' });
    expect(line.msg).toBe(`token request to ${host} failed: HTTP 401; the client credentials were refused: `
      + 'check OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET and OAUTH_CLIENT_AUTH (basic or post)');
  });

  it('says an HTML page came where JSON was due', async () => {
    const mock = await mockUpstream();
    mock.fault('/oauth/token', 'non-json');
    const line = await failureLine(mock.tokenUrl, mock.clientSecret);
    expect(line).toMatchObject({ status: 200, code: 'UPSTREAM_UNAVAILABLE' });
    expect(line.msg).toBe(`token request to ${new URL(mock.tokenUrl).host} failed: HTML answer (HTTP 200); `
      + "check that OAUTH_TOKEN_URL is the token endpoint itself (a web page, a login page or a proxy's error page answers HTML)");
  });
});
