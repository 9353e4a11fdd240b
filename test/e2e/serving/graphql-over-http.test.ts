/**
 * The GraphQL-over-HTTP spec's own audit (graphql-http's `serverAudits`) against two gateways over
 * one mock: the lean path on, as deployed, and off (yoga's HTTP layer serves everything). The lean
 * path must not cost the gateway any conformance: every MUST passes, and each audit ends the same
 * on both sides, so a SHOULD the gateway misses is missed by yoga too.
 */
import { serverAudits, type AuditResult } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockUpstream, type MockUpstream } from '../../../src/mock-upstream/index.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';

interface Side {
  harness: Harness;
  results: AuditResult[];
  /** Audit requests yoga's HTTP layer read (the rest were served by the lean path). */
  readByYoga: number;
}

// Private: one line per audit that did not pass, with the answer that failed it.
async function describeFailure(result: AuditResult): Promise<string> {
  if (result.status === 'ok') return `${result.id} ok`;
  const body = await result.response.clone().text().catch(() => '<body already read>');
  const type = result.response.headers.get('content-type');
  return `${result.id} ${result.status} "${result.name}": ${result.reason}; answered ${result.response.status} ${type} ${body}`;
}

// Private: runs every audit in turn (auditServer runs them all at once), so both sides see the
// same requests in the same order and their caches hold the same state at each step.
async function audit(harness: Harness): Promise<Side> {
  let readByYoga = 0;
  // yoga runs its onRequestParse hooks on every request it reads (as in test/lean-path/path-taken.test.ts).
  const yoga = harness.gateway.yoga as unknown as { onRequestParseHooks: Array<() => void> };
  yoga.onRequestParseHooks.unshift(() => void (readByYoga += 1));
  const results: AuditResult[] = [];
  for (const { fn } of serverAudits({ url: `${harness.url}/graphql` })) results.push(await fn());
  return { harness, results, readByYoga };
}

describe('the GraphQL-over-HTTP audit', () => {
  let mock: MockUpstream;
  let lean: Side;
  let yoga: Side;

  beforeAll(async () => {
    mock = await createMockUpstream({ catalog: { sites: 30, cities: 8, products: 40 } });
    lean = await audit(await startGateway({ sharedMock: mock, leanPath: true }));
    yoga = await audit(await startGateway({ sharedMock: mock, leanPath: false }));
  });

  afterAll(async () => {
    await lean?.harness.close();
    await yoga?.harness.close();
    await mock?.close();
  });

  it('passes every MUST audit with the lean path on', async () => {
    const musts = lean.results.filter((result) => result.name.startsWith('MUST'));
    expect(musts.length).toBeGreaterThan(0);
    const failed = await Promise.all(musts.filter((result) => result.status !== 'ok').map(describeFailure));
    expect(failed).toEqual([]);
  });

  it('ends every audit, SHOULD and MAY included, as the gateway without the lean path does', async () => {
    expect(lean.results.map(({ id }) => id)).toEqual(yoga.results.map(({ id }) => id));
    // Each audit that ended otherwise, with both answers.
    const differences = await Promise.all(
      lean.results
        .map((result, index) => [result, yoga.results[index]!] as const)
        .filter(([onLean, onYoga]) => onLean.status !== onYoga.status)
        .map(async ([onLean, onYoga]) => ({ lean: await describeFailure(onLean), yoga: await describeFailure(onYoga) })),
    );
    expect(differences).toEqual([]);
  });

  it('is a test of the lean path: it served audit requests itself, which yoga read on the other side', () => {
    // Lean off, yoga reads every request, so the hook counts the right thing.
    expect(yoga.readByYoga).toBeGreaterThanOrEqual(yoga.results.length);
    expect(lean.readByYoga).toBeLessThan(yoga.readByYoga);
  });
});
