/**
 * Parameters the gateway cannot read are the client's mistake: 400 `BAD_REQUEST`, like a POST
 * body that is not JSON, never a 500 with an error-level log line and a stack (yoga's parser let
 * `JSON.parse` throw); and no refusal quotes the parser's words back (`extensions.originalError`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';

const BAD_PARAMETERS = ['variables=abc', 'extensions=abc', 'variables=%7B', 'variables=%7B%22a%22%3A&extensions=%7B%7D'];
const ACCEPTS = ['application/graphql-response+json', 'application/json', '*/*'];

function errorLines(h: Harness): string[] {
  return h.logs.filter((line) => JSON.parse(line).level >= 50);
}

describe('unreadable GraphQL parameters', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('answers a GET with non-JSON variables or extensions with 400 BAD_REQUEST, whatever the Accept, and logs no error', async () => {
    h = await startGateway();
    for (const parameters of BAD_PARAMETERS) {
      for (const accept of ACCEPTS) {
        const response = await fetch(`${h.url}/graphql?query=%7B__typename%7D&${parameters}`, { headers: { accept } });
        expect([parameters, accept, response.status]).toEqual([parameters, accept, 400]);
        expect(await response.json()).toEqual({
          errors: [{ message: 'The variables or extensions parameter is not valid JSON', extensions: { code: 'BAD_REQUEST' } }],
        });
      }
    }
    expect(errorLines(h)).toEqual([]);
    expect(h.mock.calls()).toBe(0);
  });

  it('answers a form POST with non-JSON variables alike', async () => {
    h = await startGateway();
    const response = await fetch(`${h.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'query=%7B__typename%7D&variables=abc',
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).errors[0].extensions).toEqual({ code: 'BAD_REQUEST' });
    expect(errorLines(h)).toEqual([]);
  });

  it(`answers a POST of broken JSON with 400 BAD_REQUEST without quoting the parser`, async () => {
    h = await startGateway();
    for (const accept of ACCEPTS) {
      const response = await fetch(`${h.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept }, body: '{"query":"secret-ish' });
      expect([accept, response.status]).toEqual([accept, 400]);
      const text = await response.text();
      expect(JSON.parse(text)).toEqual({ errors: [{ message: 'POST body sent invalid JSON.', extensions: { code: 'BAD_REQUEST' } }] });
      expect(text).not.toContain('secret-ish');
    }
    expect(errorLines(h)).toEqual([]);
  });
});
