/**
 * `stockAlerts(siteCodes:)` with codes the upstream does not know: they are dropped from the watch
 * after the first round that reads them, the subscriber is told once (`NOT_FOUND`, naming them),
 * and no later round asks the upstream for them again. Rounds run by hand (`pollNow`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { until } from '../../helpers/http.js';
import { subscribeSse, type SseSubscriber } from '../../helpers/sse.js';

const ALERTS = `subscription A($sites: [String!], $threshold: Int) {
  stockAlerts(siteCodes: $sites, threshold: $threshold) { kind site { code } laneIndex stock }
}`;
const DETAIL = '/api/site/detail';
const LIST = '/api/site/list-with-points';
const ENV = { LIVE_POLL_S: '3600' };
const MADE_UP = Array.from({ length: 12 }, (_, i) => `NOSUCH${String(i + 1).padStart(2, '0')}`);

describe('stockAlerts with unknown site codes', () => {
  let h: Harness;
  const subscribers: SseSubscriber[] = [];
  afterEach(async () => {
    subscribers.splice(0).forEach((subscriber) => subscriber.close());
    await h.close();
  });
  const subscribe = (variables: Record<string, unknown>) => {
    const subscriber = subscribeSse(h.url, ALERTS, variables);
    subscribers.push(subscriber);
    return subscriber;
  };
  // Detail calls the mock got for `codes` so far.
  const detailsOf = (codes: readonly string[]) => h.mock.callLog().filter((call) => call.path === DETAIL && codes.includes(call.query.siteCode!)).length;

  it('drops the made-up codes after one round of details, tells the subscriber once naming ten of them, and polls only the known site from then on', async () => {
    // Pages of two sites: a walk would cost more than the details of 13 sites.
    h = await startGateway({ env: ENV, mock: { behaviour: { maxPageSize: 2 } } });
    const site = h.mock.catalog.sites[0]!;
    const { point, laneIndex } = laneAbove(site, 3);
    const subscriber = subscribe({ sites: [site.code, ...MADE_UP], threshold: 2 });
    await until(() => h.gateway.live.subscriptions().stockAlerts === 1);
    expect(h.gateway.live.poller.watchedKeys()).toBe(13);

    await h.gateway.live.poller.pollNow(); // the baseline, and the codes found unknown
    expect(detailsOf(MADE_UP)).toBe(12);
    expect(h.gateway.live.poller.watchedKeys()).toBe(1);
    const [told] = await subscriber.received(1);
    expect(told!.errors?.map((error) => error.extensions?.code)).toEqual(['NOT_FOUND']);
    const message = told!.errors![0]!.message;
    for (const code of MADE_UP.slice(0, 10)) expect(message).toContain(code);
    expect(message).not.toContain(MADE_UP[10]);
    expect(message).toContain('and 2 more');

    const details = h.mock.calls(DETAIL);
    h.mock.setStock(site.code, point.code, laneIndex, 0);
    await h.gateway.live.poller.pollNow();
    expect(h.mock.calls(DETAIL)).toBe(details + 1);
    expect(detailsOf(MADE_UP)).toBe(12);
    const events = await subscriber.received(2);
    expect(events[1]!.data.stockAlerts).toMatchObject({ kind: 'LOW', site: { code: site.code }, laneIndex, stock: 0 });
    expect(events.filter((event) => event.errors !== undefined)).toHaveLength(1);
  });

  it('ends a subscription whose every named site is unknown once it has been told so', async () => {
    h = await startGateway({ env: ENV });
    const subscriber = subscribe({ sites: MADE_UP.slice(0, 2) });
    await until(() => h.gateway.live.subscriptions().stockAlerts === 1);
    await h.gateway.live.poller.pollNow();
    expect(h.gateway.live.poller.watchedKeys()).toBe(0);
    const [told] = await subscriber.received(1);
    expect(told!.errors?.map((error) => error.extensions?.code)).toEqual(['NOT_FOUND']);
    expect(told!.errors![0]!.message).toContain(`"${MADE_UP[0]}", "${MADE_UP[1]}"`);
    expect(await subscriber.ended).toBe(true);
    await until(() => h.gateway.live.subscriptions().stockAlerts === 0);
    const details = h.mock.calls(DETAIL);
    await h.gateway.live.poller.pollNow();
    expect(h.mock.calls(DETAIL)).toBe(details);
  });

  it('drops the codes a walk of the pages does not bring, without asking for their details', async () => {
    h = await startGateway({ env: ENV });
    const known = h.mock.catalog.sites.slice(0, 3).map((site) => site.code);
    const subscriber = subscribe({ sites: [...known, ...MADE_UP] });
    await until(() => h.gateway.live.subscriptions().stockAlerts === 1);
    await h.gateway.live.poller.pollNow();
    expect(h.gateway.live.poller.watchedKeys()).toBe(3);
    const [told] = await subscriber.received(1);
    expect(told!.errors?.map((error) => error.extensions?.code)).toEqual(['NOT_FOUND']);
    expect(h.mock.calls(DETAIL)).toBe(0);
    // Two pages of 50 hold the mock's 60 sites: cheaper than three details, round after round.
    const pages = h.mock.calls(LIST);
    await h.gateway.live.poller.pollNow();
    expect(h.mock.calls(LIST)).toBe(pages + 2);
    expect(h.mock.calls(DETAIL)).toBe(0);
  });
});

// Private: a lane of `site` holding more than `above` items.
function laneAbove(site: { points: Array<{ code: string; cargolanes: Array<{ stock: number; goodsCode?: string }> }> }, above: number) {
  for (const point of site.points) {
    const laneIndex = point.cargolanes.findIndex((lane) => lane.goodsCode !== undefined && lane.stock > above);
    if (laneIndex !== -1) return { point, laneIndex };
  }
  throw new Error(`no lane above ${above} at the first site`);
}
