import { inspect } from 'node:util';
import { systemClock } from '../../../src/base/clock.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createUpstreamClient } from '../../../src/upstream/http/client.js';
import { createTokenManager } from '../../../src/upstream/token/manager.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { TEST_TIMEOUT_MS, captureLogs, manualClock, rejectionOf, startUpstream, type StartedUpstream } from '../../helpers/upstream.js';
import { sendJson, startRawServer, type RawServer } from '../../helpers/raw-server.js';

const SECRET = 's3cret-Value+with/odd:chars';
const CLIENT_ID = 'vending-gateway';

let upstream: StartedUpstream | undefined;
let raw: RawServer | undefined;
let gateway: Harness | undefined;

afterEach(async () => {
  await upstream?.close();
  await raw?.close();
  await gateway?.close();
  upstream = undefined;
  raw = undefined;
  gateway = undefined;
});

/** Every way an error can be looked at: String(), JSON, and a deep inspect that follows `cause`. */
function renderings(error: unknown): string {
  return [String(error), JSON.stringify(error), inspect(error, { depth: 10, showHidden: true })].join('\n');
}

/** The secret, its encodings on the wire, and every token issued. */
function secretsOf(tokens: readonly string[]): string[] {
  const basic = Buffer.from(`${CLIENT_ID}:${encodeURIComponent(SECRET)}`).toString('base64');
  return [SECRET, encodeURIComponent(SECRET), basic, ...tokens];
}

function expectNoSecrets(texts: readonly string[], secrets: readonly string[]): void {
  expect(texts.length).toBeGreaterThan(0);
  for (const text of texts) {
    for (const secret of secrets) expect(text).not.toContain(secret);
  }
}

describe('secrets', () => {
  it('keeps the secret and every token out of errors, causes, logs and URLs', async () => {
    // The clock lets each token failure below reach the endpoint despite the backoff; the
    // breaker stays out of the way so every fault on /api/site/list reaches the mock. Timeouts of
    // 2 s end the hangs while the calls meant to succeed still do on a busy machine.
    const clock = manualClock();
    upstream = await startUpstream({
      mock: { clientId: CLIENT_ID, clientSecret: SECRET },
      tokens: { timeoutMs: 2000, clock },
      client: { timeoutMs: 2000, maxBodyBytes: 300, retries: 1, breakerMinimumCalls: 1000 },
    });
    const { client, mock, logs } = upstream;
    const errors: unknown[] = [];
    const failing = async (promise: Promise<unknown>): Promise<void> => void errors.push(await rejectionOf(promise));

    await client.get('/api/city/list', { pageSize: 1 });
    for (const fault of ['hang', 'reset', 'http503', 'non-json', 'slow-body', 'token-timeout'] as const) {
      mock.fault('/api/site/list', fault);
      await failing(client.get('/api/site/list'));
    }
    mock.clearFaults();
    mock.fault('/api/site/list', { envelope: { code: 4001, msg: 'bad request' } });
    await failing(client.get('/api/site/list'));
    await failing(client.get('/api/products/list', { pageSize: 50 })); // over maxBodyBytes
    await failing(client.get('/api/city/list', {}, { signal: AbortSignal.abort() }));
    mock.expireAllTokens();
    mock.fault('/oauth/token', 'hang', { times: 1 });
    await failing(client.get('/api/city/list', { pageSize: 1 }));
    for (const fault of ['reset', 'http503', 'non-json'] as const) {
      clock.advance(60_000);
      mock.fault('/oauth/token', fault, { times: 1 });
      await failing(client.tokens.getToken());
    }
    await failing(client.tokens.getToken()); // backing off: fails without a request
    clock.advance(60_000);
    await client.get('/api/city/list', { pageSize: 1 });

    const wrong = createTokenManager({ tokenUrl: mock.tokenUrl, clientId: CLIENT_ID, clientSecret: `${SECRET}-wrong`, clientAuth: 'post', timeoutMs: 2000, logger: upstream.logger, clock: systemClock });
    await failing(wrong.getToken());
    await wrong.close();

    expect(errors).toHaveLength(15);
    const secrets = secretsOf(mock.issuedTokens());
    expect(mock.issuedTokens().length).toBeGreaterThanOrEqual(3);
    expectNoSecrets(errors.map(renderings), [...secrets, `${SECRET}-wrong`]);
    expectNoSecrets(logs, [...secrets, `${SECRET}-wrong`]);
    expectNoSecrets(mock.callLog().map((call) => JSON.stringify(call.query)), secrets);
  });

  it('redacts a secret or token the upstream echoes in msg', async () => {
    raw = await startRawServer((req, res) => (req.url.startsWith('/oauth')
      ? sendJson(res, 200, { code: 1001, msg: `client ${CLIENT_ID} with secret ${SECRET} is disabled` })
      : sendJson(res, 200, { code: 4002, msg: `token ${req.headers.authorization?.slice(7)} lacks a scope` })));
    const { logs, logger } = captureLogs();
    const tokens = createTokenManager({ tokenUrl: `${raw.url}/oauth/token`, clientId: CLIENT_ID, clientSecret: SECRET, clientAuth: 'basic', timeoutMs: TEST_TIMEOUT_MS, logger, clock: systemClock });
    const authError = await rejectionOf(tokens.getToken());
    await tokens.close();

    const client = createUpstreamClient({
      baseUrl: raw.url, timeoutMs: TEST_TIMEOUT_MS, logger, clock: systemClock,
      tokens: { getToken: async () => 'echoed-token-123', invalidate: () => {}, tokenRequests: 0, close: async () => {} },
    });
    const apiError = await rejectionOf(client.get('/api/city/list'));
    await client.close();

    expect(authError).toMatchObject({ code: 'UPSTREAM_AUTH_FAILED', upstreamMsg: `client ${CLIENT_ID} with secret [redacted] is disabled` });
    expect(apiError).toMatchObject({ code: 'UPSTREAM_ERROR', upstreamMsg: 'token [redacted] lacks a scope' });
    expectNoSecrets([renderings(authError), renderings(apiError), ...logs], [...secretsOf([]), 'echoed-token-123']);
  });

  it('wraps an undici error about the Authorization header without its value', async () => {
    raw = await startRawServer((_req, res) => sendJson(res, 200, { code: 0, result: null }));
    const badToken = 'token-with\nnewline-SECRET';
    const client = createUpstreamClient({
      baseUrl: raw.url, timeoutMs: TEST_TIMEOUT_MS, clock: systemClock,
      tokens: { getToken: async () => badToken, invalidate: () => {}, tokenRequests: 0, close: async () => {} },
    });
    const error = await rejectionOf(client.get('/api/city/list'));
    await client.close();

    expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    expectNoSecrets([renderings(error)], ['newline-SECRET']);
  });

  it('redacts every form the credentials travel in when the token endpoint echoes them', async () => {
    const secret = 'p"a\\ss wörd+/:&=%';
    const form = new URLSearchParams([['', secret]]).toString().slice(1);
    const forms = {
      plain: secret,
      formEncoded: form,
      urlEncoded: encodeURIComponent(secret),
      jsonEscaped: JSON.stringify(secret).slice(1, -1),
      basic: Buffer.from(`${CLIENT_ID}:${form}`).toString('base64'),
      basicUnpadded: Buffer.from(`${CLIENT_ID}:${form}`).toString('base64').replace(/=+$/, ''),
      basicRaw: Buffer.from(`${CLIENT_ID}:${secret}`).toString('base64'),
    };
    for (const [name, echoed] of Object.entries(forms)) {
      raw = await startRawServer((req, res) => sendJson(res, 200, {
        code: 1001, msg: `refused ${name}: ${echoed}; you sent ${req.headers.authorization ?? ''} and ${req.body}`,
      }));
      const { logs, logger } = captureLogs();
      for (const clientAuth of ['basic', 'post'] as const) {
        const tokens = createTokenManager({ tokenUrl: `${raw.url}/oauth/token`, clientId: CLIENT_ID, clientSecret: secret, clientAuth, timeoutMs: 1000, logger, clock: systemClock });
        const error = await rejectionOf(tokens.getToken());
        await tokens.close();
        expect(error, name).toMatchObject({ code: 'UPSTREAM_AUTH_FAILED' });
        expect((error as { upstreamMsg: string }).upstreamMsg, name).toContain(`refused ${name}: [redacted]`);
        logger.debug({ err: error }, 'token request failed');
        expectNoSecrets([renderings(error), ...logs], Object.values(forms));
      }
      await raw.close();
      raw = undefined;
    }
  });

  it('redacts a token the token endpoint echoes when it refuses to replace it', async () => {
    let granted = false;
    raw = await startRawServer((_req, res) => {
      if (granted) return sendJson(res, 200, { code: 1001, msg: 'will not replace tok-held-4f1e: client is disabled' });
      granted = true;
      sendJson(res, 200, { access_token: 'tok-held-4f1e', token_type: 'Bearer', expires_in: 60 });
    });
    const clock = manualClock();
    const tokens = createTokenManager({ tokenUrl: `${raw.url}/oauth/token`, clientId: CLIENT_ID, clientSecret: SECRET, clientAuth: 'basic', timeoutMs: TEST_TIMEOUT_MS, clock });
    expect(await tokens.getToken()).toBe('tok-held-4f1e');
    clock.advance(61_000);
    const error = await rejectionOf(tokens.getToken());
    await tokens.close();
    expect(error).toMatchObject({ code: 'UPSTREAM_AUTH_FAILED', upstreamMsg: 'will not replace [redacted]: client is disabled' });
    expectNoSecrets([renderings(error)], ['tok-held-4f1e']);
  });
});

describe('an upstream whose error msg echoes the credentials, through the gateway', () => {
  const secret = 's3cr3t-CLIENT+SECRET/x:y';

  it('tells the client only the code and a fixed message, and logs the msg with every form of the secret and the token redacted', async () => {
    gateway = await startGateway({ mock: { clientId: CLIENT_ID, clientSecret: secret } });
    const h = gateway;
    expect((await h.query('{ cities(pageSize: 1) { total } }')).errors).toBeUndefined();
    const token = h.mock.issuedTokens()[0]!;
    const form = new URLSearchParams([['', secret]]).toString().slice(1);
    const forms = [
      secret, form, encodeURIComponent(secret), token,
      Buffer.from(`${CLIENT_ID}:${form}`).toString('base64').replace(/=+$/, ''),
      Buffer.from(`${CLIENT_ID}:${secret}`).toString('base64').replace(/=+$/, ''),
    ];
    const msg = `denied for Bearer ${token} secret=${secret} form=${form} url=${encodeURIComponent(secret)} basic=${forms[4]} raw=${forms[5]}`;
    h.mock.fault('/api/site/detail', { envelope: { code: 4003, msg } });

    const response = await fetch(`${h.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ site(code: "${h.mock.catalog.sites[0]!.code}") { code } }` }),
    });
    const text = await response.text();
    expect(JSON.parse(text).errors).toEqual([{
      message: 'The upstream answered with an error', locations: [{ line: 1, column: 3 }], path: ['site'],
      extensions: { code: 'UPSTREAM_ERROR', upstreamCode: 4003 },
    }]);
    expect(text).not.toContain('denied');
    expectNoSecrets([text, ...h.logs], forms);
    // The log keeps what the upstream said, redacted.
    const failed = h.logs.map((line) => JSON.parse(line)).find((line) => line.msg === 'upstream call failed');
    expect(failed).toMatchObject({ level: 40, path: '/api/site/detail', upstreamCode: 4003 });
    expect(failed.upstreamMsg).toMatch(/^denied for Bearer \[redacted\] secret=\[redacted\] form=\[redacted\]/);
  });
});
