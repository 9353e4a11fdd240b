/**
 * What reaches GraphQL: one path (pages/pages.ts refuses every other) and a body the gateway reads
 * (doors/graphql/read.ts); anything else gets a coded refusal and costs no upstream call.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';

const QUERY = JSON.stringify({ query: '{ cities(pageSize: 1) { items { code } } }' });

async function send(h: Harness, path: string, init: RequestInit) {
  const response = await fetch(`${h.url}${path}`, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
}

describe('the GraphQL endpoint', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('answers 404 NOT_FOUND on paths that merely end like the endpoint, at no upstream cost', async () => {
    h = await startGateway();
    const calls = h.mock.calls();
    for (const path of ['/graphql/', '/x/graphql', '/healthz?next=/graphql']) {
      const answer = await send(h, path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: QUERY });
      expect(answer.status, path).toBe(404);
      expect(answer.body.errors[0].extensions.code, path).toBe('NOT_FOUND');
    }
    expect(h.mock.calls()).toBe(calls);
    expect((await send(h, '/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: QUERY })).status).toBe(200);
  });

  it('refuses a body it cannot read with 415 UNSUPPORTED_MEDIA_TYPE, multipart included, at no upstream cost', async () => {
    h = await startGateway();
    const calls = h.mock.calls();
    for (const contentType of ['text/plain', 'application/xml', 'multipart/form-data; boundary=zz', undefined]) {
      const headers: Record<string, string> = contentType === undefined ? {} : { 'content-type': contentType };
      const answer = await send(h, '/graphql', { method: 'POST', headers, body: QUERY });
      expect(answer.status, contentType).toBe(415);
      expect(answer.body.errors[0].extensions.code, contentType).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect(answer.headers.get('accept'), contentType).toContain('application/json');
    }
    expect(h.mock.calls()).toBe(calls);
  });

  it('still answers 403 first for such a body when CSRF prevention is on', async () => {
    h = await startGateway({ env: { CSRF_PREVENTION: 'true' } });
    const answer = await send(h, '/graphql', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: QUERY });
    expect(answer.status).toBe(403);
  });
});
