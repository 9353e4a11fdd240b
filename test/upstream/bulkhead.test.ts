import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { UpstreamError } from '../../src/upstream/errors.js';
import { rejectionOf, startUpstream, type StartUpstreamOptions, type StartedUpstream } from '../helpers/upstream.js';

const PATH = '/api/product/detail';

let upstream: StartedUpstream | undefined;

afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

/** A client on the mock, token already fetched, so only API calls are in flight. */
async function start(options: StartUpstreamOptions): Promise<StartedUpstream> {
  upstream = await startUpstream(options);
  await upstream.tokens.getToken();
  return upstream;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('bulkhead', () => {
  it('keeps at most maxConcurrency calls in flight for 500 concurrent distinct calls, all of which succeed', async () => {
    // A dispatcher without a connection limit, so that only the bulkhead holds calls back.
    const agent = new Agent();
    const { client, mock } = await start({ client: { maxConcurrency: 8, dispatcher: agent }, mock: { latencyMs: 20 } });

    const outcomes = await Promise.allSettled(Array.from({ length: 500 }, (_, i) => client.get(PATH, { goodsCode: `g${i}` })));
    await agent.close();
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    expect(mock.calls(PATH)).toBe(500);
    expect(mock.maxInFlight()).toBeLessThanOrEqual(8);
    expect(mock.maxInFlight()).toBeGreaterThanOrEqual(2);
  });

  it('fails the calls beyond the queue fast with UPSTREAM_UNAVAILABLE while the others succeed', async () => {
    const { client, mock } = await start({ client: { maxConcurrency: 2, maxQueue: 3 }, mock: { latencyMs: 100 } });

    const started = performance.now();
    const calls = Array.from({ length: 20 }, (_, i) => client.get(PATH, { goodsCode: `g${i}` }).then(
      () => ({ ok: true as const }),
      (error: UpstreamError) => ({ ok: false as const, error, ms: performance.now() - started }),
    ));
    const outcomes = await Promise.all(calls);
    const failed = outcomes.flatMap((outcome) => (outcome.ok ? [] : [outcome]));

    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(5);
    expect(failed).toHaveLength(15);
    for (const { error, ms } of failed) {
      expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', path: PATH, transient: false });
      expect(error.message).toMatch(/too many upstream calls waiting/);
      expect(ms).toBeLessThan(50);
    }
    expect(mock.calls(PATH)).toBe(5);
    expect(client.breakerStates()[PATH]).toBe('closed');
  });

  it('lets a queued call whose caller aborts leave the queue at once, without ever sending it', async () => {
    const { client, mock } = await start({ client: { maxConcurrency: 1, maxQueue: 1 }, mock: { latencyMs: 200 } });
    const running = client.get(PATH, { goodsCode: 'running' });
    const controller = new AbortController();
    const queued = rejectionOf(client.get(PATH, { goodsCode: 'queued' }, { signal: controller.signal }));
    await sleep(20);

    const abortedAt = performance.now();
    controller.abort();
    const error = await queued;
    expect(performance.now() - abortedAt).toBeLessThan(20);
    expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    expect((error as Error).message).toMatch(/aborted by the caller/);

    // Its place is free again: one more call fits into the queue of one.
    await expect(client.get(PATH, { goodsCode: 'next' })).resolves.toBeNull();
    await running;
    expect(mock.callLog().filter((call) => call.path === PATH).map((call) => call.query.goodsCode)).toEqual(['running', 'next']);
  });

  it('does not make token requests wait for a slot', async () => {
    const { client, mock, tokens } = await start({ client: { maxConcurrency: 1 } });
    mock.fault(PATH, 'hang');
    const controller = new AbortController();
    const busy = rejectionOf(client.get(PATH, { goodsCode: 'busy' }, { signal: controller.signal }));
    await sleep(20);
    tokens.invalidate(mock.issuedTokens()[0] ?? '');

    const started = performance.now();
    await tokens.getToken();
    expect(performance.now() - started).toBeLessThan(200);
    expect(mock.calls('/oauth/token')).toBe(2);
    controller.abort();
    await busy;
  });
});
