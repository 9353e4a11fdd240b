/**
 * The demo moves: with demo mode's mock selling on its own (DEMO_SALES_PER_MINUTE, app/demo.ts),
 * the example page's "Machines at a site" changes in Chromium while nobody touches the page or the
 * mock. The rate is high (600 a minute at each site) and LIVE_POLL_S short (0.5 s) so a change
 * comes soon; the test waits for the page to change, never for a time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoUpstream, type DemoUpstream } from '../../../src/app/demo.js';
import { loadConfig } from '../../../src/base/config/config.js';
import { launchBrowser, type BrowserSession } from '../../helpers/browser.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { buildPage, type BuiltPage } from './built-page.js';

const ENV = { DEMO_SALES_PER_MINUTE: '600', LIVE_POLL_S: '0.5' };

describe('the example page in demo mode', () => {
  let built: BuiltPage;
  let demo: DemoUpstream;
  let h: Harness;
  let browser: BrowserSession;

  beforeAll(async () => {
    built = await buildPage();
    const config = loadConfig(ENV);
    demo = await startDemoUpstream({ latencyMs: 0, salesPerMinute: config.demoSalesPerMinute });
    h = await startGateway({ sharedMock: demo.mock, demoPageDirectory: built.directory, env: ENV });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await demo?.close();
    await built?.remove();
  });

  it("shows a site's stock changing as the demo sells, with no action on the page", async () => {
    const { page } = browser;
    const catalog = demo.mock.catalog;
    // A site in service, the only one of its name in its city (its button is found by name).
    const site = catalog.sites.find((s) => s.state === 1 && catalog.sites.filter((o) => o.cityCode === s.cityCode && o.name === s.name).length === 1)!;
    let streams = 0;
    page.on('request', (request) => void (request.postData()?.includes('"SiteStock"') && (streams += 1)));

    await page.goto(`${h.url}/demo/`);
    await page.locator(`#city option[value="${site.cityCode}"]`).waitFor({ state: 'attached' });
    await page.getByLabel('City', { exact: true }).selectOption(site.cityCode);
    await page.getByRole('button', { name: `Machines at ${site.name}`, exact: true }).click();
    await page.locator('#site-live[data-state="live"]').waitFor();
    await page.locator('#site-stock tbody tr').first().waitFor();
    const first = await stocksShown();
    await page.evaluate(() => Object.assign(window, { demoMarker: 'not reloaded' }));

    // Wait for the numbers to move on their own.
    await page.waitForFunction((before) => {
      const now = [...document.querySelectorAll('#site-stock tbody .stock')].map((cell) => cell.textContent).join(',');
      return now !== before;
    }, first.join(','), { timeout: 30_000 });

    const later = await stocksShown();
    expect(later).toHaveLength(first.length);
    expect(later.some((stock, i) => stock !== first[i])).toBe(true);
    expect(await page.evaluate(() => (window as unknown as { demoMarker?: string }).demoMarker)).toBe('not reloaded');
    expect(streams).toBe(1);
    await browser.screenshot('demo-moves');
    expect(browser.externalRequests()).toEqual([]);

    function stocksShown(): Promise<string[]> {
      return page.locator('#site-stock tbody .stock').evaluateAll((cells) => cells.map((cell) => cell.textContent ?? ''));
    }
  }, 60_000);
});
