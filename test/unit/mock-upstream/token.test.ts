import { describe, expect, it } from 'vitest';
import { createMockUpstream } from '../../../src/mock-upstream/index.js';
import { api, basicAuth, postToken, useMock, type Envelope } from './client.js';

interface TokenAnswer {
  access_token: string;
  token_type: string;
  expires_in?: number;
  scope?: string;
}

describe('token endpoint', () => {
  const mock = useMock();

  it('issues a bearer token to a client authenticated with HTTP Basic', async () => {
    const answer = await postToken(mock(), { grant_type: 'client_credentials' }, {
      authorization: basicAuth('demo-client', 'demo-secret'),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const token = answer.json<TokenAnswer>();
    expect(token).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 7200 });
    expect(mock().issuedTokens()).toEqual([token.access_token]);
    expect((await api(mock(), '/api/city/list', { token: token.access_token })).json().code).toBe(0);
  });

  it('issues a token to a client sending its credentials in the form body', async () => {
    const answer = await postToken(mock(), {
      grant_type: 'client_credentials', client_id: 'demo-client', client_secret: 'demo-secret',
    });
    expect(answer.status).toBe(200);
    expect(answer.json<TokenAnswer>().token_type).toBe('Bearer');
  });

  it('issues random, unguessable tokens that differ every time', async () => {
    const form = { grant_type: 'client_credentials', client_id: 'demo-client', client_secret: 'demo-secret' };
    const a = (await postToken(mock(), form)).json<TokenAnswer>().access_token;
    const b = (await postToken(mock(), form)).json<TokenAnswer>().access_token;
    expect(a).not.toBe(b);
    expect(a.length).toBeGreaterThanOrEqual(40);
  });

  it('echoes a requested scope', async () => {
    const answer = await postToken(mock(), { grant_type: 'client_credentials', scope: 'read' }, {
      authorization: basicAuth('demo-client', 'demo-secret'),
    });
    expect(answer.json<TokenAnswer>().scope).toBe('read');
  });

  it('refuses wrong or missing client credentials with RFC 6749 invalid_client and HTTP 401', async () => {
    const wrongSecret = await postToken(mock(), { grant_type: 'client_credentials' }, {
      authorization: basicAuth('demo-client', 'nope'),
    });
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.json()).toEqual({ error: 'invalid_client', error_description: 'client authentication failed' });
    const none = await postToken(mock(), { grant_type: 'client_credentials' });
    expect(none.status).toBe(401);
    const wrongForm = await postToken(mock(), { grant_type: 'client_credentials', client_id: 'x', client_secret: 'demo-secret' });
    expect(wrongForm.status).toBe(401);
    expect(mock().issuedTokens()).toEqual([]);
  });

  it('refuses a grant type other than client_credentials with unsupported_grant_type', async () => {
    const answer = await postToken(mock(), { grant_type: 'password' }, { authorization: basicAuth('demo-client', 'demo-secret') });
    expect(answer.status).toBe(400);
    expect(answer.json<{ error: string }>().error).toBe('unsupported_grant_type');
  });

  it('refuses a body that is not form-urlencoded', async () => {
    const response = await fetch(mock().tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basicAuth('demo-client', 'demo-secret') },
      body: JSON.stringify({ grant_type: 'client_credentials' }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_request');
  });

  it('answers anything but POST with 405', async () => {
    const response = await fetch(mock().tokenUrl);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('wraps the token in a success envelope in envelope style', async () => {
    mock().behaviour.tokenStyle = 'envelope';
    const answer = await postToken(mock(), { grant_type: 'client_credentials' }, { authorization: basicAuth('demo-client', 'demo-secret') });
    const envelope = answer.json<Envelope<TokenAnswer>>();
    expect(envelope).toMatchObject({ code: 0, message: 'success', type: 'success', timestamp: expect.any(Number) });
    expect(envelope.result).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 7200 });
  });

  it('refuses wrong credentials with an error envelope and HTTP 401 in envelope style', async () => {
    mock().behaviour.tokenStyle = 'envelope';
    const answer = await postToken(mock(), { grant_type: 'client_credentials' }, { authorization: basicAuth('demo-client', 'nope') });
    expect(answer.status).toBe(401);
    expect(answer.json()).toEqual({ code: 401, msg: 'client authentication failed', timestamp: expect.any(Number) });
  });

  it('leaves expires_in out when tokenExpiresIn is off', async () => {
    mock().behaviour.tokenExpiresIn = false;
    const answer = await postToken(mock(), { grant_type: 'client_credentials' }, { authorization: basicAuth('demo-client', 'demo-secret') });
    expect(answer.json<TokenAnswer>()).not.toHaveProperty('expires_in');
  });

  it('announces the lifetime set with setTokenLifetime in expires_in', async () => {
    mock().setTokenLifetime(60);
    const answer = await postToken(mock(), { grant_type: 'client_credentials' }, { authorization: basicAuth('demo-client', 'demo-secret') });
    expect(answer.json<TokenAnswer>().expires_in).toBe(60);
  });
});

describe('token endpoint with custom credentials', () => {
  it('decodes form-urlencoded Basic credentials, as RFC 6749 requires', async () => {
    const mock = await createMockUpstream({ clientId: 'shop client', clientSecret: 's3cr:t+%/é' });
    try {
      const answer = await postToken(mock, { grant_type: 'client_credentials' }, { authorization: basicAuth('shop client', 's3cr:t+%/é') });
      expect(answer.status).toBe(200);
      const raw = `Basic ${Buffer.from('demo-client:demo-secret').toString('base64')}`;
      expect((await postToken(mock, { grant_type: 'client_credentials' }, { authorization: raw })).status).toBe(401);
    } finally {
      await mock.close();
    }
  });

  it('uses the configured token lifetime', async () => {
    const mock = await createMockUpstream({ tokenLifetimeS: 300 });
    try {
      const answer = await postToken(mock, { grant_type: 'client_credentials' }, { authorization: basicAuth('demo-client', 'demo-secret') });
      expect(answer.json<TokenAnswer>().expires_in).toBe(300);
    } finally {
      await mock.close();
    }
  });
});
