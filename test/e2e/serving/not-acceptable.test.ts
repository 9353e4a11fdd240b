/**
 * A request whose Accept no answer's encoder meets gets a 406 that says what to send instead:
 * the registry's NOT_ACCEPTABLE, with the media types the answer can be sent in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';

type Refused = { errors: Array<{ message: string; extensions: { code: string } }> };

describe('406 Not Acceptable', () => {
  let h: Harness;
  let off: Harness;
  beforeAll(async () => {
    h = await startGateway();
    off = await startGateway({ env: { GRAPHIQL: 'false' }, sharedMock: h.mock });
  });
  afterAll(async () => {
    await off?.close();
    await h?.close();
  });

  it('tells a subscription sent asking for JSON to ask for an event stream or multipart', async () => {
    const response = await fetch(`${h.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: 'subscription { siteStock(code: "S000001") { code } }' }),
    });
    expect(response.status).toBe(406);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    const body = (await response.json()) as Refused;
    expect(body.errors[0]!.extensions.code).toBe('NOT_ACCEPTABLE');
    expect(body.errors[0]!.message).toMatch(/text\/event-stream/);
    expect(body.errors[0]!.message).not.toMatch(/application\/json/);
  });

  it('tells a client asking for a type the gateway never sends which ones it does', async () => {
    const response = await fetch(`${h.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, { headers: { accept: 'application/xml' } });
    expect(response.status).toBe(406);
    const body = (await response.json()) as Refused;
    expect(body.errors[0]!.extensions.code).toBe('NOT_ACCEPTABLE');
    expect(body.errors[0]!.message).toMatch(/application\/graphql-response\+json/);
    expect(response.headers.get('accept')).toMatch(/application\/json/);
  });

  it('tells a browser that GraphiQL is off where it is off', async () => {
    const response = await fetch(`${off.url}/graphql`, { headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(response.status).toBe(406);
    const body = (await response.json()) as Refused;
    expect(body.errors[0]!.extensions.code).toBe('NOT_ACCEPTABLE');
    expect(body.errors[0]!.message).toMatch(/No explorer page is served here \(it is off\)/);
  });
});

describe('405 on the GraphQL path', () => {
  it('tells a client using another method than GET or POST which ones to use', async () => {
    const h = await startGateway();
    try {
      const response = await fetch(`${h.url}/graphql`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' });
      expect([response.status, response.headers.get('allow')]).toEqual([405, 'GET, POST']);
      const body = (await response.json()) as Refused;
      expect(body.errors[0]!.message).toMatch(/GET and POST/);
      expect(body.errors[0]!.extensions.code).toBeTruthy();
    } finally {
      await h.close();
    }
  });
});
