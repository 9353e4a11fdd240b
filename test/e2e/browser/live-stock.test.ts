/**
 * The example page's "Machines at a site" in Chromium: a site's lanes, pushed by the gateway over
 * GraphQL over SSE (`Subscription.siteStock`), change on the page as the mock upstream's stock
 * changes, without a reload; an upstream failure shows an error while the last stock stays; the
 * page's subscription ends when it shows another site or leaves. The gateway polls every
 * `LIVE_POLL_S` = 0.5 s; every wait is for an event on the page or a count at the mock, with
 * seconds to spare, never a bound on how fast.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Catalog, MockSite } from '../../../src/mock-upstream/index.js';
import { launchBrowser, type BrowserSession } from '../../helpers/browser.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { buildPage, type BuiltPage } from './built-page.js';

const POLL_S = 0.5;
/** The upstream circuit's cool-down, in ms: the test moves the gateway's clock past it once the upstream answers again. */
const BREAKER_COOLDOWN_MS = 5000;
const DETAIL = '/api/site/detail';

describe("the example page's live stock in a browser", () => {
  let built: BuiltPage;
  let h: Harness;
  let browser: BrowserSession;

  beforeAll(async () => {
    built = await buildPage();
    h = await startGateway({ demoPageDirectory: built.directory, env: { LIVE_POLL_S: String(POLL_S), UPSTREAM_BREAKER_COOLDOWN_MS: String(BREAKER_COOLDOWN_MS) } });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await built?.remove();
  });

  it("shows a site's machines and lanes, and a lane's new stock as soon as the upstream's changes, without a reload", async () => {
    const { page } = browser;
    const [site] = watchableSites(h.mock.catalog);
    const streams = siteStockRequests(page);

    await page.goto(`${h.url}/demo/`);
    await showSite(page, h.mock.catalog, site!);
    expect(await laneStocks(page)).toEqual(expectedStocks(site!));
    expect(await page.locator('#site-live').textContent()).toBe('Live');

    await page.evaluate(() => Object.assign(window, { liveMarker: 'not reloaded' }));
    const { point, laneIndex, stock } = laneToChange(site!);
    h.mock.setStock(site!.code, point.code, laneIndex, stock + 7);

    await expect.poll(() => laneStock(page, point.code, laneIndex)).toBe(String(stock + 7));
    expect(await laneStocks(page)).toEqual(expectedStocks(site!));
    expect(await page.evaluate(() => (window as unknown as { liveMarker?: string }).liveMarker)).toBe('not reloaded');
    // One stream carried every push: the page neither polled nor subscribed again.
    expect(streams.map((request) => request.code)).toEqual([site!.code]);
    await browser.screenshot('demo-live-stock');
    expect(browser.externalRequests()).toEqual([]);
  });

  it('shows an error while the upstream fails, keeps the last stock shown, and goes live again when it answers', async () => {
    const { page } = browser;
    const site = watchableSites(h.mock.catalog)[1]!;
    await page.goto(`${h.url}/demo/`);
    await showSite(page, h.mock.catalog, site);
    const before = await laneStocks(page);

    h.mock.fault(DETAIL, 'http503');
    try {
      await page.locator('#site-stock-error').waitFor({ state: 'visible', timeout: 20_000 });
      expect(await page.locator('#site-live').getAttribute('data-state')).toBe('paused');
      expect(await laneStocks(page)).toEqual(before);
      expect(await page.locator('#site-stock-status').textContent()).toMatch(/^Stock as of \d\d:\d\d:\d\d;/);
      await browser.screenshot('demo-live-stock-error');
    } finally {
      h.mock.clearFaults();
      // The failures opened the upstream's circuit; its cool-down runs on the gateway's clock.
      h.clock.advance(BREAKER_COOLDOWN_MS);
    }
    const { point, laneIndex, stock } = laneToChange(site);
    h.mock.setStock(site.code, point.code, laneIndex, stock + 3);

    await page.locator('#site-live[data-state="live"]').waitFor({ timeout: 20_000 });
    await expect.poll(() => laneStock(page, point.code, laneIndex)).toBe(String(stock + 3));
    expect(await page.locator('#site-stock-error').isHidden()).toBe(true);
  });

  it('says when the gateway ends the subscription (as on shutdown), keeps the stock shown, and resumes when asked', async () => {
    const { page } = browser;
    const site = watchableSites(h.mock.catalog)[4]!;
    await page.goto(`${h.url}/demo/`);
    await showSite(page, h.mock.catalog, site);
    const before = await laneStocks(page);

    h.gateway.live.close();
    await page.locator('#site-live[data-state="ended"]').waitFor();
    expect(await page.locator('#site-live').textContent()).toBe('Not live');
    expect(await page.locator('#site-stock-status').textContent()).toMatch(/^Live updates stopped; stock as of \d\d:\d\d:\d\d\.$/);
    expect(await laneStocks(page)).toEqual(before);

    await page.getByRole('button', { name: 'Resume live updates' }).click();
    await page.locator('#site-live[data-state="live"]').waitFor();
    const { point, laneIndex, stock } = laneToChange(site);
    h.mock.setStock(site.code, point.code, laneIndex, stock + 5);
    await expect.poll(() => laneStock(page, point.code, laneIndex)).toBe(String(stock + 5));
    expect(await page.getByRole('button', { name: 'Resume live updates' }).isHidden()).toBe(true);
  });

  it('ends the subscription of a site when another is shown, and the last one when the page leaves', async () => {
    const { page } = browser;
    const [first, second] = watchableSites(h.mock.catalog).slice(2);
    const live = h.gateway.live;
    await page.goto(`${h.url}/demo/`);
    const aborted: string[] = [];
    page.on('requestfailed', (request) => {
      const code = siteStockCodeOf(request.postData());
      if (code !== undefined) aborted.push(code);
    });
    await showSite(page, h.mock.catalog, first!);
    await roundsOf(h, first!.code, 2);

    await showSite(page, h.mock.catalog, second!);
    await expect.poll(() => aborted).toEqual([first!.code]);
    await expect.poll(() => [live.subscriptions().siteStock, live.poller.watchedKeys()]).toEqual([1, 1]);
    // Rounds go on for the site shown; the one left is read no more.
    const firstReads = detailCalls(h, first!.code);
    await roundsOf(h, second!.code, 3);
    expect(detailCalls(h, first!.code)).toBe(firstReads);

    await page.goto('about:blank');
    await expect.poll(() => aborted).toEqual([first!.code, second!.code]);
    await expect.poll(() => [live.subscriptions().siteStock, live.poller.watchedKeys()]).toEqual([0, 0]);
  });
});

/**
 * Enabled sites, each the only one of its name in its city (so its "Machines" button is found by
 * name), with a machine whose first lane holds a product.
 */
function watchableSites(catalog: Catalog): MockSite[] {
  return catalog.sites.filter((site) => site.state === 1
    && catalog.sites.filter((other) => other.cityCode === site.cityCode && other.name === site.name).length === 1
    && site.points.some((point) => point.cargolanes[0]?.goodsCode !== undefined));
}

/** The lane a test changes: the first lane holding a product, in the first machine with one. */
function laneToChange(site: MockSite) {
  const point = site.points.find((p) => p.cargolanes[0]?.goodsCode !== undefined)!;
  return { point, laneIndex: 0, stock: point.cargolanes[0]!.stock };
}

/** Every lane's stock as the page should show it, by `point:lane`. */
function expectedStocks(site: MockSite): Record<string, string> {
  return Object.fromEntries(site.points.flatMap((point) => point.cargolanes.map((lane, i) => [`${point.code}:${i}`, String(lane.stock)])));
}

/** Picks the site's city, then its "Machines" button; resolves once its lanes are shown, live. */
async function showSite(page: Page, catalog: Catalog, site: MockSite): Promise<void> {
  const city = catalog.cities.find((c) => c.code === site.cityCode)!;
  await page.locator(`#city option[value="${city.code}"]`).waitFor({ state: 'attached' });
  await page.getByLabel('City', { exact: true }).selectOption(city.code);
  await page.getByRole('button', { name: `Machines at ${site.name}`, exact: true }).click();
  await page.getByRole('table', { name: `Machines at ${site.name}` }).waitFor({ state: 'visible' });
  await page.locator('#site-live[data-state="live"]').waitFor();
}

/** Every lane's stock on the page, by `point:lane`. */
async function laneStocks(page: Page): Promise<Record<string, string>> {
  return page.locator('#site-stock tbody tr').evaluateAll((rows) => Object.fromEntries(rows.map((row) => [
    `${(row as HTMLElement).dataset.point}:${(row as HTMLElement).dataset.lane}`,
    row.querySelector('.stock')?.textContent ?? '',
  ])));
}

async function laneStock(page: Page, pointCode: string, laneIndex: number): Promise<string | null> {
  return page.locator(`#site-stock tr[data-point="${pointCode}"][data-lane="${laneIndex}"] .stock`).textContent();
}

/** The site codes of the page's `SiteStock` subscriptions, as it opens them. */
function siteStockRequests(page: Page): { code: string }[] {
  const opened: { code: string }[] = [];
  page.on('request', (request) => {
    const code = siteStockCodeOf(request.postData());
    if (code !== undefined) opened.push({ code });
  });
  return opened;
}

// Private: the site code of a `SiteStock` request body, if it is one.
function siteStockCodeOf(body: string | null): string | undefined {
  if (body === null) return undefined;
  try {
    const parsed = JSON.parse(body) as { operationName?: string; variables?: { code?: string } };
    return parsed.operationName === 'SiteStock' ? parsed.variables?.code : undefined;
  } catch {
    return undefined;
  }
}

/** The gateway's reads of a site's detail at the mock so far. */
function detailCalls(h: Harness, siteCode: string): number {
  return h.mock.callLog().filter((call) => call.path === DETAIL && call.query.siteCode === siteCode).length;
}

/** Resolves once the gateway has read the site `rounds` more times, and no read is under way. */
async function roundsOf(h: Harness, siteCode: string, rounds: number): Promise<void> {
  const target = detailCalls(h, siteCode) + rounds;
  await expect.poll(() => detailCalls(h, siteCode) >= target && h.mock.inFlight(DETAIL) === 0).toBe(true);
}
