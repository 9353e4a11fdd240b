/**
 * An upstream that answers an HTML page (a proxy's error page, a login form) where its JSON
 * envelope was due: the client gets the registry's UPSTREAM_UNAVAILABLE, and the log says in one
 * line what came back and what to check.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { logEntries, post } from '../../helpers/http.js';

describe('an upstream answering HTML', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('is UPSTREAM_UNAVAILABLE to the client and one explained warn line in the log', async () => {
    h = await startGateway({ env: { UPSTREAM_RETRIES: '0' } });
    h.mock.fault('/api/site/detail', 'non-json');
    const answer = await post(h, '{ site(code: "S000001") { code } }');
    expect(answer.body.errors.map((error: any) => error.extensions.code)).toEqual(['UPSTREAM_UNAVAILABLE']);

    const failed = logEntries(h).filter((line) => line.path === '/api/site/detail' && line.level === 40);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status: 200 });
    expect(failed[0].msg).toBe('upstream call failed: GET /api/site/detail answered HTTP 200 with an HTML page, not JSON; '
      + "check that UPSTREAM_BASE_URL is the API's base address (a web page, a login page or a proxy's error page answers HTML)");
  });
});
