import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../../../src/upstream/errors.js';
import { manualClock, rejectionAtOnce, rejectionOf, startUpstream, type StartUpstreamOptions, type StartedUpstream } from '../../../helpers/upstream.js';

const PATH = '/api/product/detail';
const COOLDOWN_MS = 200;

let upstream: StartedUpstream | undefined;
/** The breakers' clock: cool-downs and windows pass when a test says so, not while it waits. */
let clock = manualClock();

afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

/** A client with a short cool-down on a hand-moved clock and no backoff pauses, token already fetched. */
async function start(options: StartUpstreamOptions = {}): Promise<StartedUpstream> {
  clock = manualClock();
  upstream = await startUpstream({ ...options, client: { breakerCooldownMs: COOLDOWN_MS, random: () => 0, clock, ...options.client } });
  await upstream.tokens.getToken();
  return upstream;
}

/** Fails `PATH` with 503 until the circuit opens: 3 + 2 attempts with the default 2 retries. */
async function openCircuit({ client, mock }: StartedUpstream): Promise<void> {
  mock.fault(PATH, 'http503');
  await rejectionOf(client.get(PATH, { goodsCode: 'g1' }));
  await rejectionOf(client.get(PATH, { goodsCode: 'g2' }));
  expect(client.breakerStates()[PATH]).toBe('open');
  expect(mock.calls(PATH)).toBe(5);
}

/** The rejection of a call that fails fast: at once, without the network or a pause (see `turnMark`). */
async function fastFailure(call: () => Promise<unknown>): Promise<UpstreamError> {
  const error = await rejectionAtOnce(call);
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
}

describe('opening', () => {
  it('opens after 5 failed attempts, retries included, and then fails calls fast without the network', async () => {
    const started = await start();
    const { client, mock } = started;
    await openCircuit(started);

    for (let i = 0; i < 10; i += 1) {
      const error = await fastFailure(() => client.get(PATH, { goodsCode: `g${i}` }));
      expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', path: PATH, transient: false });
      expect(error.message).toMatch(/circuit is open/);
    }
    expect(mock.calls(PATH)).toBe(5);
  });

  it('keeps other paths working while one circuit is open, and reports every state', async () => {
    const started = await start();
    await started.client.get('/api/city/list', { pageSize: 1 });
    await openCircuit(started);

    await expect(started.client.get('/api/city/list', { pageSize: 1 })).resolves.toMatchObject({ items: [{}] });
    expect(started.client.breakerStates()).toEqual({ '/api/city/list': 'closed', [PATH]: 'open' });
  });

  it('stays closed below 5 calls in the window', async () => {
    const { client, mock } = await start({ client: { retries: 0 } });
    mock.fault(PATH, 'http503');

    for (let i = 0; i < 4; i += 1) await rejectionOf(client.get(PATH, { goodsCode: 'g1' }));
    expect(client.breakerStates()[PATH]).toBe('closed');
    await rejectionOf(client.get(PATH, { goodsCode: 'g1' }));
    expect(client.breakerStates()[PATH]).toBe('open');
  });

  it('stays closed while fewer than half the calls fail, and opens at half', async () => {
    const { client, mock } = await start({ client: { retries: 0 } });
    mock.fault(PATH, 'http503', { every: 3 });
    for (let i = 0; i < 12; i += 1) await client.get(PATH, { goodsCode: 'g1' }).catch(() => undefined);
    expect(client.breakerStates()[PATH]).toBe('closed');

    const other = '/api/site/detail';
    mock.fault(other, 'http503', { every: 2 });
    for (let i = 0; i < 5; i += 1) await client.get(other, { siteCode: 's1' }).catch(() => undefined);
    expect(client.breakerStates()[other]).toBe('closed'); // 2 of 5
    await rejectionOf(client.get(other, { siteCode: 's1' }));
    expect(client.breakerStates()[other]).toBe('open'); // 3 of 6
  });

  it('forgets failures older than the window', async () => {
    const { client, mock } = await start({ client: { retries: 0, breakerWindowMs: 200 } });
    mock.fault(PATH, 'http503');

    for (let i = 0; i < 4; i += 1) await rejectionOf(client.get(PATH, { goodsCode: 'g1' }));
    clock.advance(250);
    for (let i = 0; i < 4; i += 1) await rejectionOf(client.get(PATH, { goodsCode: 'g1' }));
    expect(client.breakerStates()[PATH]).toBe('closed');
  });

  it('never counts envelope errors, 4xx answers or caller aborts', async () => {
    const { client, mock } = await start({ client: { retries: 0 }, mock: { behaviour: { missingPaths: ['/api/sites/list'] } } });
    mock.fault(PATH, { envelope: { code: 1001, msg: 'system busy' } });
    for (let i = 0; i < 10; i += 1) await rejectionOf(client.get(PATH, { goodsCode: 'g1' }));
    for (let i = 0; i < 10; i += 1) await rejectionOf(client.get('/api/sites/list'));

    mock.fault(PATH, 'hang');
    await Promise.all(Array.from({ length: 10 }, () => rejectionOf(client.get(PATH, { goodsCode: 'g1' }, { signal: AbortSignal.timeout(30) }))));
    expect(client.breakerStates()).toEqual({ [PATH]: 'closed', '/api/sites/list': 'closed' });
  });

  it('fails a call that waited in the queue fast once the circuit opened meanwhile', async () => {
    const { client, mock } = await start({ client: { retries: 0, maxConcurrency: 1 }, mock: { latencyMs: 30 } });
    mock.fault(PATH, 'http503');

    const errors = await Promise.all(Array.from({ length: 10 }, (_, i) => rejectionOf(client.get(PATH, { goodsCode: `g${i}` }))));
    expect(mock.calls(PATH)).toBe(5);
    expect(errors.filter((error) => /circuit is open/.test((error as Error).message))).toHaveLength(5);
  });
});

describe('half-open', () => {
  it('lets exactly one probe through after the cool-down while other calls fail fast; a failed probe opens it again', async () => {
    const started = await start();
    const { client, mock } = started;
    await openCircuit(started);
    clock.advance(COOLDOWN_MS);
    expect(client.breakerStates()[PATH]).toBe('half-open');

    const probe = rejectionOf(client.get(PATH, { goodsCode: 'probe' }));
    const others = await Promise.all(Array.from({ length: 5 }, () => fastFailure(() => client.get(PATH, { goodsCode: 'other' }))));
    for (const error of others) expect(error.message).toMatch(/circuit is open.*probe/);
    await probe;
    expect(mock.calls(PATH)).toBe(6);
    expect(client.breakerStates()[PATH]).toBe('open');
    await expect(client.get(PATH, { goodsCode: 'g1' })).rejects.toThrow(/circuit is open/);
    expect(mock.calls(PATH)).toBe(6);
  });

  it('closes the circuit when the probe succeeds, with a fresh window', async () => {
    const started = await start({ client: { retries: 0 } });
    const { client, mock } = started;
    mock.fault(PATH, 'http503');
    for (let i = 0; i < 5; i += 1) await rejectionOf(client.get(PATH, { goodsCode: 'g1' }));
    expect(client.breakerStates()[PATH]).toBe('open');

    mock.clearFaults();
    clock.advance(COOLDOWN_MS);
    await expect(client.get(PATH, { goodsCode: 'g1' })).resolves.toBeNull();
    expect(client.breakerStates()[PATH]).toBe('closed');

    mock.fault(PATH, 'http503');
    for (let i = 0; i < 4; i += 1) await rejectionOf(client.get(PATH, { goodsCode: 'g1' }));
    expect(client.breakerStates()[PATH]).toBe('closed');
  });

  it('lets the next call probe when the probe\'s caller gives up', async () => {
    const started = await start();
    const { client, mock } = started;
    await openCircuit(started);
    mock.fault(PATH, 'hang');
    clock.advance(COOLDOWN_MS);

    await rejectionOf(client.get(PATH, { goodsCode: 'g1' }, { signal: AbortSignal.timeout(30) }));
    expect(client.breakerStates()[PATH]).toBe('half-open');
    mock.clearFaults();
    await expect(client.get(PATH, { goodsCode: 'g1' })).resolves.toBeNull();
    expect(client.breakerStates()[PATH]).toBe('closed');
  });
});
