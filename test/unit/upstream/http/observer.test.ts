import { afterEach, describe, expect, it } from 'vitest';
import type { Fault } from '../../../../src/mock-upstream/index.js';
import type { AttemptEnd } from '../../../../src/upstream/http/observer.js';
import { rejectionOf, startUpstream, type StartedUpstream } from '../../../helpers/upstream.js';

const PATH = '/api/city/list';

describe('the upstream observer', () => {
  let upstream: StartedUpstream;
  afterEach(() => upstream.close());

  async function observe(options: Parameters<typeof startUpstream>[0] = {}) {
    const attempts: AttemptEnd[] = [];
    const started: string[] = [];
    const tokenOutcomes: string[] = [];
    upstream = await startUpstream({
      ...options,
      client: {
        retries: 0,
        ...options.client,
        observer: { onAttemptStart: (path) => started.push(path), onAttemptEnd: (attempt) => attempts.push(attempt) },
      },
      tokens: { ...options.tokens, observer: { onTokenRequest: ({ outcome }) => tokenOutcomes.push(outcome) } },
    });
    return { attempts, started, tokenOutcomes };
  }

  it.each<[string, Fault, string]>([
    ['an error envelope', { envelope: { code: 1001, msg: 'busy' } }, 'envelope_1001'],
    ['a 503 without an envelope', 'http503', 'http_503'],
    ['a 2xx that is not an envelope', 'non-json', 'malformed'],
    ['a reset connection', 'reset', 'network'],
    ['a body over the cap', { raw: { body: JSON.stringify({ code: 0, result: 'x'.repeat(2000) }) } }, 'too_large'],
  ])('labels %s as %s', async (_what, fault, outcome) => {
    const { attempts, started } = await observe({ client: { maxBodyBytes: 1000 } });
    upstream.mock.fault(PATH, fault);
    await rejectionOf(upstream.client.get(PATH, { page: 1 }));
    expect(started).toEqual([PATH]);
    expect(attempts).toEqual([{ path: PATH, outcome, durationMs: expect.any(Number), sent: true }]);
  });

  it('labels a timeout, and a success as ok, once per attempt with retries', async () => {
    // 2 s: the second attempt must beat the timeout even on a busy machine.
    const { attempts } = await observe({ client: { timeoutMs: 2000, retries: 1, retryBaseDelayMs: 0 } });
    upstream.mock.fault(PATH, 'hang', { times: 1 });
    await upstream.client.get(PATH, { page: 1 });
    expect(attempts.map((attempt) => attempt.outcome)).toEqual(['timeout', 'ok']);
    expect(attempts[0]!.durationMs).toBeGreaterThanOrEqual(1990);
  });

  it('tells of attempts the gateway refused itself, as not sent', async () => {
    const { attempts, started } = await observe({ client: { maxConcurrency: 1, maxQueue: 0, breakerMinimumCalls: 1 } });
    upstream.mock.setLatency(100);
    const first = upstream.client.get(PATH, { page: 1 });
    await rejectionOf(upstream.client.get(PATH, { page: 2 })); // no slot, no queue
    await first;
    upstream.mock.setLatency(0);
    upstream.mock.fault(PATH, 'http503', { times: 1 });
    await rejectionOf(upstream.client.get(PATH, { page: 3 })); // opens the circuit
    await rejectionOf(upstream.client.get(PATH, { page: 4 }));
    expect(attempts.map(({ outcome, sent }) => [outcome, sent])).toEqual([
      ['queue_full', false], ['ok', true], ['http_503', true], ['circuit_open', false],
    ]);
    expect(started).toHaveLength(2);
  });

  it('labels token requests ok, or by how they failed', async () => {
    const { tokenOutcomes } = await observe({ tokens: { failureBackoffMs: 0 } });
    upstream.mock.fault('/oauth/token', 'http503', { times: 1 });
    await rejectionOf(upstream.tokens.getToken());
    await upstream.tokens.getToken();
    await upstream.tokens.getToken(); // the cached token: no request
    expect(tokenOutcomes).toEqual(['http_503', 'ok']);
  });
});
