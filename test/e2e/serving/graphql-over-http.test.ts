/**
 * The GraphQL-over-HTTP spec's own audit (graphql-http's `serverAudits`) against the gateway:
 * every MUST passes, and every SHOULD and MAY too, but those the gateway answers otherwise on
 * purpose, each named below with its reason.
 */
import { serverAudits, type AuditResult } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';

// Private: one line per audit that did not pass, with the answer that failed it.
async function describeFailure(result: AuditResult): Promise<string> {
  if (result.status === 'ok') return `${result.id} ok`;
  const body = await result.response.clone().text().catch(() => '<body already read>');
  const type = result.response.headers.get('content-type');
  return `${result.id} ${result.status} "${result.name}": ${result.reason}; answered ${result.response.status} ${type} ${body}`;
}

describe('the GraphQL-over-HTTP audit', () => {
  let h: Harness;
  const results: AuditResult[] = [];

  beforeAll(async () => {
    h = await startGateway({ mock: { catalog: { sites: 30, cities: 8, products: 40 } } });
    // One at a time (auditServer runs them all at once): the caches hold a known state at each step.
    for (const { fn } of serverAudits({ url: `${h.url}/graphql` })) results.push(await fn());
  });

  afterAll(() => h?.close());

  it('passes every MUST audit', async () => {
    const musts = results.filter((result) => result.name.startsWith('MUST'));
    expect(musts.length).toBeGreaterThan(0);
    expect(await Promise.all(musts.filter((result) => result.status !== 'ok').map(describeFailure))).toEqual([]);
  });

  it('passes every SHOULD and MAY audit', async () => {
    const others = results.filter((result) => !result.name.startsWith('MUST'));
    expect(others.length).toBeGreaterThan(0);
    expect(await Promise.all(others.filter((result) => result.status !== 'ok').map(describeFailure))).toEqual([]);
  });
});
