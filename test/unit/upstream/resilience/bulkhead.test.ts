import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { UpstreamError } from '../../../../src/upstream/errors.js';
import { until } from '../../../helpers/http.js';
import { rejectionAtOnce, rejectionOf, startUpstream, turnMark, type StartUpstreamOptions, type StartedUpstream } from '../../../helpers/upstream.js';

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

    // "Fast" is counted in turns of the event loop, not in ms: a refused call settles before
    // any answer could arrive, without waiting for a slot.
    const mark = turnMark();
    const calls = Array.from({ length: 20 }, (_, i) => client.get(PATH, { goodsCode: `g${i}` }).then(
      () => ({ ok: true as const }),
      (error: UpstreamError) => ({ ok: false as const, error, atOnce: !mark.passed() }),
    ));
    const outcomes = await Promise.all(calls);
    const failed = outcomes.flatMap((outcome) => (outcome.ok ? [] : [outcome]));

    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(5);
    expect(failed).toHaveLength(15);
    for (const { error, atOnce } of failed) {
      expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', path: PATH, transient: false });
      expect(error.message).toMatch(/too many upstream calls waiting/);
      expect(atOnce).toBe(true);
    }
    expect(mock.calls(PATH)).toBe(5);
    expect(client.breakerStates()[PATH]).toBe('closed');
  });

  it('lets a queued call whose caller aborts leave the queue at once, without ever sending it', async () => {
    const { client, mock } = await start({ client: { maxConcurrency: 1, maxQueue: 1 } });
    // The running call hangs until its caller gives up, so the queue stays full for as long as
    // the test needs, however slow the machine.
    mock.fault(PATH, 'hang', { times: 1 });
    const runningController = new AbortController();
    const running = rejectionOf(client.get(PATH, { goodsCode: 'running' }, { signal: runningController.signal }));
    const controller = new AbortController();
    const queued = client.get(PATH, { goodsCode: 'queued' }, { signal: controller.signal });
    await until(() => mock.inFlight(PATH) === 1);

    const error = await rejectionAtOnce(() => {
      controller.abort();
      return queued;
    });
    expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    expect((error as Error).message).toMatch(/aborted by the caller/);

    // Its place is free again: one more call fits into the queue of one while the first still hangs.
    const next = client.get(PATH, { goodsCode: 'next' });
    expect(mock.inFlight(PATH)).toBe(1);
    runningController.abort();
    await expect(next).resolves.toBeNull();
    await running;
    expect(mock.callLog().filter((call) => call.path === PATH).map((call) => call.query.goodsCode)).toEqual(['running', 'next']);
  });

  it('does not make token requests wait for a slot', async () => {
    const { client, mock, tokens } = await start({ client: { maxConcurrency: 1 } });
    mock.fault(PATH, 'hang');
    const controller = new AbortController();
    const busy = rejectionOf(client.get(PATH, { goodsCode: 'busy' }, { signal: controller.signal }));
    await until(() => mock.inFlight(PATH) === 1);
    tokens.invalidate(mock.issuedTokens()[0] ?? '');

    // The one slot stays taken (the call hangs until aborted below): a token request that waited
    // for it would never end, and the test would time out.
    await tokens.getToken();
    expect(mock.calls('/oauth/token')).toBe(2);
    expect(mock.inFlight(PATH)).toBe(1);
    controller.abort();
    await busy;
  });
});
