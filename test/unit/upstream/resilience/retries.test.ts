import { afterEach, describe, expect, it } from 'vitest';
import { backoffDelayMs } from '../../../../src/upstream/resilience/retry.js';
import { until } from '../../../helpers/http.js';
import { rejectionAtOnce, rejectionOf, startUpstream, type StartUpstreamOptions, type StartedUpstream } from '../../../helpers/upstream.js';

const PATH = '/api/product/detail';

let upstream: StartedUpstream | undefined;

afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

/** A client on the mock, token already fetched; no backoff pauses unless the test sets some. */
async function start(options: StartUpstreamOptions = {}): Promise<StartedUpstream> {
  upstream = await startUpstream({ ...options, client: { random: () => 0, ...options.client } });
  await upstream.tokens.getToken();
  return upstream;
}

/** The `retrying` log lines, parsed. */
function retryLines(logs: string[]): { retry: number; delayMs: number }[] {
  return logs.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'upstream call failed; retrying');
}

describe('what is retried', () => {
  it('makes exactly 1 + retries attempts when a path answers 503 every time', async () => {
    for (const retries of [undefined, 0, 3]) {
      const { client, mock } = await start({ client: retries === undefined ? {} : { retries } });
      mock.fault(PATH, 'http503');

      await expect(client.get(PATH, { goodsCode: 'g1' })).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status: 503, transient: true });
      expect(mock.calls(PATH)).toBe(1 + (retries ?? 2));
      await upstream?.close();
    }
  });

  it.each([
    ['a 503', 'http503'],
    ['a connection reset', 'reset'],
    ['a 200 answer that is not JSON', 'non-json'],
  ] as const)('succeeds on the second attempt after %s', async (_what, fault) => {
    const { client, mock } = await start();
    mock.fault(PATH, fault, { times: 1 });

    await expect(client.get(PATH, { goodsCode: mock.catalog.products[0]?.goodsCode })).resolves.toMatchObject({ goodsCode: mock.catalog.products[0]?.goodsCode });
    expect(mock.calls(PATH)).toBe(2);
  });

  it('retries an attempt that timed out', async () => {
    // The second attempt must beat the timeout even on a busy machine: 2 s, not 200 ms.
    const { client, mock } = await start({ client: { timeoutMs: 2000 } });
    mock.fault(PATH, 'hang', { times: 1 });

    await expect(client.get(PATH, { goodsCode: 'g1' })).resolves.toBeNull();
    expect(mock.calls(PATH)).toBe(2);
  });

  it('makes one attempt for an envelope error, whatever its HTTP status', async () => {
    for (const errorStatus of [200, 503]) {
      const { client, mock } = await start({ mock: { behaviour: { errorStatus } } });
      mock.fault(PATH, { envelope: { code: 1001, msg: 'system busy' } });

      await expect(client.get(PATH, { goodsCode: 'g1' })).rejects.toMatchObject({ code: 'UPSTREAM_ERROR', upstreamCode: 1001, transient: false });
      expect(mock.calls(PATH)).toBe(1);
      await upstream?.close();
    }
  });

  it('makes one attempt for a 404 answered in text', async () => {
    const { client, mock } = await start({ mock: { behaviour: { missingPaths: ['/api/sites/list'] } } });

    await expect(client.get('/api/sites/list')).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status: 404, transient: false });
    expect(mock.calls('/api/sites/list')).toBe(1);
  });

  it('makes one attempt for a body over maxBodyBytes', async () => {
    const { client, mock } = await start({ client: { maxBodyBytes: 200 } });

    await expect(client.get('/api/city/list', { pageSize: 50 })).rejects.toThrow(/body over 200 bytes/);
    expect(mock.calls('/api/city/list')).toBe(1);
  });

  it('makes no further attempt once the caller aborted', async () => {
    const { client, mock, logs } = await start();
    mock.fault(PATH, 'hang');

    await expect(client.get(PATH, { goodsCode: 'g1' }, { signal: AbortSignal.timeout(100) })).rejects.toThrow(/aborted by the caller/);
    expect(retryLines(logs)).toEqual([]); // a retry is logged before it is sent
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(mock.calls(PATH)).toBe(1);
  });
});

describe('backoff', () => {
  it('draws each pause uniformly below min(retryMaxDelayMs, retryBaseDelayMs × 2^retry) (full jitter)', () => {
    const policy = (random: number) => ({ retries: 5, baseDelayMs: 50, maxDelayMs: 1000, random: () => random });

    expect([0, 1, 2, 3, 4, 5].map((retry) => backoffDelayMs(policy(0.5), retry))).toEqual([25, 50, 100, 200, 400, 500]);
    expect(backoffDelayMs(policy(0), 4)).toBe(0);
    expect(backoffDelayMs(policy(0.999), 10)).toBeCloseTo(999);
  });

  it('pauses a random share of the growing ceiling between attempts', async () => {
    const draws: number[] = [];
    const random = (): number => {
      draws.push(draws.length);
      return 0.9;
    };
    const { client, mock, logs } = await start({ client: { retries: 3, retryBaseDelayMs: 100, retryMaxDelayMs: 250, random } });
    mock.fault(PATH, 'http503');

    const started = performance.now();
    await rejectionOf(client.get(PATH, { goodsCode: 'g1' }));
    const elapsed = performance.now() - started;

    // 0.9 × 100, 0.9 × 200, 0.9 × 250 (the cap): 495 ms in all. The pauses really are waited
    // out (the lower bound); the upper one only tells ms from seconds, generous for a busy machine.
    expect(retryLines(logs).map((line) => [line.retry, line.delayMs])).toEqual([[1, 90], [2, 180], [3, 225]]);
    expect(draws).toHaveLength(3);
    expect(elapsed).toBeGreaterThanOrEqual(480);
    expect(elapsed).toBeLessThan(5000);
  });

  it('retries at once when the jitter draws 0', async () => {
    // Ceilings of 10 and 20 s: any pause at all would show, however busy the machine.
    const { client, mock, logs } = await start({ client: { retries: 2, retryBaseDelayMs: 10_000, retryMaxDelayMs: 20_000, random: () => 0 } });
    mock.fault(PATH, 'http503');

    const started = performance.now();
    await rejectionOf(client.get(PATH, { goodsCode: 'g1' }));
    expect(performance.now() - started).toBeLessThan(5000);
    expect(retryLines(logs).map((line) => line.delayMs)).toEqual([0, 0]);
    expect(mock.calls(PATH)).toBe(3);
  });

  it('rejects at once when the caller aborts during a pause, and makes no further attempt', async () => {
    const { client, mock, logs } = await start({ client: { retryBaseDelayMs: 5000, retryMaxDelayMs: 5000, random: () => 0.99 } });
    mock.fault(PATH, 'http503');
    const controller = new AbortController();
    const call = client.get(PATH, { goodsCode: 'g1' }, { signal: controller.signal });
    await until(() => retryLines(logs).length === 1); // the first attempt failed: the pause began

    const error = await rejectionAtOnce(() => {
      controller.abort();
      return call;
    });
    expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', transient: false });
    expect((error as Error).message).toMatch(/aborted by the caller/);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(mock.calls(PATH)).toBe(1);
  });
});
