/**
 * Live polls are the gateway's own work, in their own lane: a round's upstream calls hold at most
 * a quarter of `UPSTREAM_MAX_CONCURRENCY` (the rest wait in the poller's own queue, not in the
 * shared bulkhead's), so a client request made during a big round is answered; and a round
 * runs outside the request whose watcher started the timer.
 */
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/base/logger.js';
import { runInRequest } from '../../../src/request/current.js';
import { createRequest } from '../../../src/request/request.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { startHeldGateway, type HeldGateway } from '../../helpers/held-upstream.js';
import { until } from '../../helpers/http.js';
import { subscribeSse, type SseSubscriber } from '../../helpers/sse.js';

const ALERTS = 'subscription A($sites: [String!]) { stockAlerts(siteCodes: $sites) { kind } }';
const DETAIL = '/api/site/detail';

describe('the live polls\' share of the upstream', () => {
  let held: HeldGateway | undefined;
  let h: Harness | undefined;
  const subscribers: SseSubscriber[] = [];
  afterEach(async () => {
    subscribers.splice(0).forEach((subscriber) => subscriber.close());
    await held?.close();
    await h?.close();
    held = h = undefined;
  });

  it('holds a round of 20 detail calls to 2 in flight of 8 upstream slots, and answers a client query made while they hang', async () => {
    held = await startHeldGateway({ env: { LIVE_POLL_S: '3600', UPSTREAM_MAX_CONCURRENCY: '8' } });
    const { h: gateway, held: upstream } = held;
    // Pages of one site: a walk of the 60 would cost more than 20 details.
    gateway.mock.behaviour.maxPageSize = 1;
    subscribers.push(subscribeSse(gateway.url, ALERTS, { sites: gateway.mock.catalog.sites.slice(0, 20).map((site) => site.code) }));
    await until(() => gateway.gateway.live.subscriptions().stockAlerts === 1);

    upstream.hold(DETAIL);
    const round = gateway.gateway.live.poller.pollNow();
    await until(() => upstream.waiting(DETAIL) >= 2);
    const answer = await gateway.query('{ cities(pageSize: 3) { total } }');
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({ cities: { total: expect.any(Number) } });
    // The other 18 wait in the poller's queue, not at the upstream.
    expect(upstream.waiting(DETAIL)).toBe(2);
    upstream.release(DETAIL);
    await round;
    expect(upstream.passed(DETAIL)).toBe(20);
    expect(gateway.mock.maxInFlight(DETAIL)).toBeLessThanOrEqual(2);
  });

  it('runs the rounds of its timer outside the request a watcher arrived in: their upstream calls are neither counted for it nor logged with its id', async () => {
    h = await startGateway({ env: { LIVE_POLL_S: '0.1' } });
    const code = h.mock.catalog.sites[0]!.code;
    // A watcher that arrives while a request is served (the timer starts with it).
    const record = createRequest('the-subscriber', createLogger('silent', new PassThrough()), h.clock.monotonic());
    const reads: unknown[] = [];
    const unwatch = runInRequest(record, () => h!.gateway.live.poller.watchSite(code, (read) => reads.push(read)));
    try {
      const detailLines = () => h!.logs.map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.msg === 'upstream call' && line.path === DETAIL);
      // Two rounds of the timer.
      await until(() => reads.length >= 2 && detailLines().length >= 2);
      expect(detailLines().every((line) => line.requestId === undefined)).toBe(true);
      expect(record.upstreamCalls).toBe(0);
    } finally {
      unwatch();
    }
  });
});
