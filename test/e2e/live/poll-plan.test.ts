/**
 * The poller's cheaper plan before any walk has been made: what the loaders know of the site
 * list's size prices it, and when nothing is known, page 1 of the list (its total) does, so that
 * many watched sites cost a walk of the pages from the first round, not a detail call each.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { until } from '../../helpers/http.js';
import { subscribeSse, type SseSubscriber } from '../../helpers/sse.js';

const ALERTS = 'subscription A($sites: [String!]) { stockAlerts(siteCodes: $sites) { kind } }';
const DETAIL = '/api/site/detail';
const LIST = '/api/site/list-with-points';
// 200 sites in pages of at most 50: a walk is 4 pages.
const MOCK = { catalog: { sites: 200 } };
const ENV = { LIVE_POLL_S: '3600' };

describe('the poll plan before any walk', () => {
  let h: Harness;
  const subscribers: SseSubscriber[] = [];
  afterEach(async () => {
    subscribers.splice(0).forEach((subscriber) => subscriber.close());
    await h.close();
  });
  // 150 sites, in two subscriptions (a subscription names 100 at most).
  const watch150 = async () => {
    const codes = h.mock.catalog.sites.slice(0, 150).map((site) => site.code);
    for (const sites of [codes.slice(0, 75), codes.slice(75)]) subscribers.push(subscribeSse(h.url, ALERTS, { sites }));
    await until(() => h.gateway.live.subscriptions().stockAlerts === 2);
  };

  it('reads 150 watched sites of 200 with one walk of the pages in the first round, its size learnt from page 1, not with 150 details', async () => {
    h = await startGateway({ env: ENV, mock: MOCK });
    await watch150();
    await h.gateway.live.poller.pollNow();
    expect(h.mock.calls(DETAIL)).toBe(0);
    // Page 1 (the probe, kept as the walk's first page) and the three others.
    expect(h.mock.calls(LIST)).toBe(4);
    await h.gateway.live.poller.pollNow();
    expect(h.mock.calls(DETAIL)).toBe(0);
    expect(h.mock.calls(LIST)).toBe(8);
  });

  it('prices the first walk by the size of the site list a client query learnt, without a probe', async () => {
    h = await startGateway({ env: ENV, mock: MOCK });
    expect((await h.query('{ sites(pageSize: 1) { total } }')).data).toEqual({ sites: { total: 200 } });
    await watch150();
    await h.gateway.live.poller.pollNow();
    expect(h.mock.calls(DETAIL)).toBe(0);
    expect(h.mock.calls(LIST)).toBe(4);
  });

  it('keeps to details for a few sites, however large the list', async () => {
    h = await startGateway({ env: ENV, mock: MOCK });
    const sites = h.mock.catalog.sites.slice(0, 3).map((site) => site.code);
    subscribers.push(subscribeSse(h.url, ALERTS, { sites }));
    await until(() => h.gateway.live.subscriptions().stockAlerts === 1);
    await h.gateway.live.poller.pollNow();
    expect(h.mock.calls(DETAIL)).toBe(3);
    expect(h.mock.calls(LIST)).toBe(1); // the probe, once
    await h.gateway.live.poller.pollNow();
    expect(h.mock.calls(DETAIL)).toBe(6);
    expect(h.mock.calls(LIST)).toBe(1);
  });
});
