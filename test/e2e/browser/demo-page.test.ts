/**
 * The example page (examples/web) as a visitor meets it at /demo: built once with vite's API,
 * served by a gateway over the mock upstream, used in Chromium (test/helpers/browser.ts). Every
 * expectation is worked out from the mock's catalog (with test/helpers/beyond-expected.ts), never
 * asked of the gateway. The page's files over plain HTTP: demo-page-files.test.ts.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Catalog, MockSite } from '../../../src/mock-upstream/index.js';
import { distanceToSite, hasCoordinates, isOpenAt, productsByLaneCount, timeOfDayNow } from '../../helpers/beyond-expected.js';
import { launchBrowser, type BrowserSession } from '../../helpers/browser.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { buildPage, type BuiltPage } from './built-page.js';

/** Machines the page lists for a product (its `MACHINES_SHOWN`). */
const MACHINES_SHOWN = 10;
/** Distances as the page shows them: `1.78 km`, `1,088.66 km`. */
const KM = new Intl.NumberFormat('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

describe('the example page in a browser', () => {
  let built: BuiltPage;
  let h: Harness;
  let browser: BrowserSession;

  beforeAll(async () => {
    built = await buildPage();
    h = await startGateway({ demoPageDirectory: built.directory });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await built?.remove();
  });

  it("lists a city's sites, in the upstream's order, with whether each is open now", async () => {
    const { page } = browser;
    const city = cityWithMostSites(h.mock.catalog);
    const sites = h.mock.catalog.sites.filter((site) => site.cityCode === city.code);
    const before = openBadges(sites);

    await page.goto(`${h.url}/demo/`);
    const rows = await chooseCity(page, city);

    expect(rows.map((row) => row.name)).toEqual(sites.map((site) => site.name));
    const after = openBadges(sites);
    // Hours change at :00 and :30; a site whose state changed while the test ran may show either.
    rows.forEach((row, i) => expect([before[i], after[i]], row.name).toContain(row.now));
    expect(await page.getByRole('status').first().textContent()).toBe(`${sites.length} sites in ${city.name}.`);
    await browser.screenshot('demo-city-sites');
    expect(browser.externalRequests()).toEqual([]);
  }, 60_000);

  it('lists the machines holding a product in stock nearest to a typed-in location, nearest first, lanes added up', async () => {
    const { page } = browser;
    const catalog = h.mock.catalog;
    const product = catalog.products.find((p) => p.goodsCode === productsByLaneCount(catalog)[0])!;
    const city = cityWithMostSites(catalog);
    const near = nearSite(siteWithMostStockOf(catalog, product.goodsCode));
    const expected = nearestMachines(catalog, product.goodsCode, near);
    expect(expected).toHaveLength(MACHINES_SHOWN);

    await page.goto(`${h.url}/demo/`);
    await chooseCity(page, city);
    await chooseProduct(page, product.goodsCode);
    await page.getByLabel('Latitude', { exact: true }).fill(String(near.lat));
    await page.getByLabel('Longitude', { exact: true }).fill(String(near.lng));
    await page.getByRole('button', { name: 'Show nearest stock' }).click();
    const rows = await availabilityRows(page, `Nearest stock of ${product.productName} from ${near.lat.toFixed(4)}, ${near.lng.toFixed(4)}`);

    expect(rows.map((row) => row.name)).toEqual(expected.map((machine) => machine.site.name));
    expect(rows.map((row) => row.machine)).toEqual(expected.map((machine) => machine.point.name));
    expect(rows.map((row) => row.stock)).toEqual(expected.map((machine) => String(machine.stock)));
    expect(rows.map((row) => row.slots)).toEqual(expected.map((machine) => (machine.lanes === 1 ? '1 slot' : `${machine.lanes} slots`)));
    expect(rows.map((row) => row.distance)).toEqual(expected.map((machine) => `${KM.format(machine.distanceKm)} km`));

    await browser.screenshot('demo');
    expect(browser.externalRequests()).toEqual([]);
  }, 60_000);

  it('fills the location in from the browser with "Use my location", and answers for it', async () => {
    const { page } = browser;
    const catalog = h.mock.catalog;
    const product = catalog.products.find((p) => p.goodsCode === productsByLaneCount(catalog)[1])!;
    const near = nearSite(catalog.sites.at(-1)!);
    const expected = nearestMachines(catalog, product.goodsCode, near);
    await page.context().grantPermissions(['geolocation'], { origin: h.url });
    await page.context().setGeolocation({ latitude: near.lat, longitude: near.lng });

    await page.goto(`${h.url}/demo/`);
    await chooseProduct(page, product.goodsCode);
    await page.getByRole('button', { name: 'Use my location' }).click();
    const rows = await availabilityRows(page, `Nearest stock of ${product.productName} from`);

    expect(await page.getByLabel('Latitude', { exact: true }).inputValue()).toBe(near.lat.toFixed(6));
    expect(await page.getByLabel('Longitude', { exact: true }).inputValue()).toBe(near.lng.toFixed(6));
    expect(rows.map((row) => [row.name, row.machine])).toEqual(expected.map((machine) => [machine.site.name, machine.point.name]));
    await browser.screenshot('demo-my-location');
    expect(browser.externalRequests()).toEqual([]);
  }, 60_000);

  it('narrows the product list to the products whose name contains the search text, any case', async () => {
    const { page } = browser;
    const catalog = h.mock.catalog;
    const text = catalog.products[0]!.ipName.toUpperCase();
    const expected = catalog.products.filter((p) => p.productName.toLowerCase().includes(text.toLowerCase())).map((p) => p.goodsCode);
    expect(expected.length).toBeLessThan(catalog.products.length);

    await page.goto(`${h.url}/demo/`);
    await page.locator('#product:enabled').waitFor();
    await page.getByLabel('Search products', { exact: true }).fill(text);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('status').getByText(`${expected.length} products match`).waitFor();

    const listed = await page.locator('#product option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
    expect(listed).toEqual(['', ...expected]);
    await browser.screenshot('demo-search');
    expect(browser.externalRequests()).toEqual([]);
  }, 60_000);

  it('never shows "Open now" for a site not in service, nor sends a shopper to its machines', async () => {
    const own = await startGateway({ demoPageDirectory: built.directory });
    try {
      const { page } = browser;
      const catalog = own.mock.catalog;
      const goodsCode = productsByLaneCount(catalog)[0]!;
      // The site with the most stock of the product, open round the clock, taken out of service.
      const site = Object.assign(siteWithMostStockOf(catalog, goodsCode), { state: 0, openTime: '00:00:00', closeTime: '23:59:59' });
      const city = catalog.cities.find((c) => c.code === site.cityCode)!;
      const near = nearSite(site);
      const everySite = nearestMachines(catalog, goodsCode, near, false);
      expect(everySite[0]!.site).toBe(site);

      await page.goto(`${own.url}/demo/`);
      const rows = await chooseCity(page, city);
      const sites = catalog.sites.filter((s) => s.cityCode === city.code);
      expect(rows.filter((_, i) => sites[i]!.state !== 1).map((row) => row.now)).toEqual(sites.filter((s) => s.state !== 1).map(() => 'Not in service'));
      expect(rows[sites.indexOf(site)]!.now).toBe('Not in service');

      await chooseProduct(page, goodsCode);
      await page.getByLabel('Latitude', { exact: true }).fill(String(near.lat));
      await page.getByLabel('Longitude', { exact: true }).fill(String(near.lng));
      await page.getByRole('button', { name: 'Show nearest stock' }).click();
      const machines = await availabilityRows(page, 'Nearest stock of');
      const expected = nearestMachines(catalog, goodsCode, near);
      expect(machines.map((row) => [row.name, row.machine])).toEqual(expected.map((m) => [m.site.name, m.point.name]));
      expect(expected.some((m) => m.site === site)).toBe(false);
      await browser.screenshot('demo-not-in-service');
    } finally {
      await own.close();
    }
  }, 60_000);

  it("shows the messages of the gateway's GraphQL errors", async () => {
    const failing = await startGateway({ demoPageDirectory: built.directory });
    try {
      failing.mock.fault('/api/city/list', { envelope: { code: 500, msg: 'city list is down' } });
      const { page } = browser;
      const answer = page.waitForResponse((response) => response.request().postDataJSON()?.operationName === 'Cities');
      await page.goto(`${failing.url}/demo/`);
      const { errors } = (await (await answer).json()) as { errors: { message: string }[] };
      expect(errors.length).toBeGreaterThan(0);

      const alert = page.locator('#sites-error');
      await alert.waitFor({ state: 'visible' });
      for (const { message } of errors) expect(await alert.textContent()).toContain(message);
      expect(await page.getByLabel('City', { exact: true }).isDisabled()).toBe(true);
      await browser.screenshot('demo-errors');
    } finally {
      await failing.close();
    }
  }, 60_000);

  it('opened again in a new tab: index.html is revalidated (304) and its brotli-compressed assets come from the browser cache', async () => {
    const asked: string[] = [];
    const counted = await startGateway({ demoPageDirectory: built.directory });
    counted.watch(({ path, status, headers }) => {
      if (path.startsWith('/demo')) asked.push(`${path} ${status} ${headers['content-encoding'] ?? null}`);
    });
    const context = await browser.page.context().browser()!.newContext();
    try {
      const first = await context.newPage();
      await first.goto(`${counted.url}/demo/`);
      await first.waitForLoadState('load');
      expect(asked.splice(0).map((line) => line.replace(/-[\w-]{8}\./, '-<hash>.')).sort())
        .toEqual(['/demo/ 200 br', '/demo/assets/index-<hash>.css 200 br', '/demo/assets/index-<hash>.js 200 br']);
      const second = await context.newPage();
      await second.goto(`${counted.url}/demo/`);
      await second.waitForLoadState('load');
      expect(asked).toEqual(['/demo/ 304 null']); // a 304 has no body to encode
    } finally {
      await context.close();
      await counted.close();
    }
  });
});

/** The city with the most sites (the first such in the catalog's order). */
function cityWithMostSites(catalog: Catalog) {
  const count = (code: string) => catalog.sites.filter((site) => site.cityCode === code).length;
  return catalog.cities.reduce((best, city) => (count(city.code) > count(best.code) ? city : best));
}

/** The site with the most items of a product in stock (the first such in the catalog's order). */
function siteWithMostStockOf(catalog: Catalog, goodsCode: string): MockSite {
  const stock = (site: MockSite) => site.points.flatMap((point) => point.cargolanes)
    .filter((lane) => lane.goodsCode === goodsCode)
    .reduce((sum, lane) => sum + lane.stock, 0);
  return catalog.sites.reduce((best, site) => (stock(site) > stock(best) ? site : best));
}

/**
 * The machines the page should list, worked out on the whole catalog: every machine of a site in
 * service (of any site, when not `enabledOnly`) holding the product in stock, with its lanes and
 * items added up, nearest first (a site's machines in their order), the first MACHINES_SHOWN.
 */
function nearestMachines(catalog: Catalog, goodsCode: string, near: { lat: number; lng: number }, enabledOnly = true) {
  return catalog.sites.filter((site) => hasCoordinates(site) && (!enabledOnly || site.state === 1))
    .flatMap((site) => site.points.map((point) => {
      const lanes = point.cargolanes.filter((lane) => lane.goodsCode === goodsCode && lane.stock > 0);
      const stock = lanes.reduce((sum, lane) => sum + lane.stock, 0);
      return { site, point, lanes: lanes.length, stock, distanceKm: distanceToSite(near, site) };
    }))
    .filter((machine) => machine.lanes > 0)
    .sort((a, b) => a.distanceKm - b.distanceKm)
    .slice(0, MACHINES_SHOWN);
}

/** A point about 2 km from a site, with 4 decimals (what a person would type). */
function nearSite(site: MockSite): { lat: number; lng: number } {
  return { lat: Number((site.lat + 0.013).toFixed(4)), lng: Number((site.lng - 0.011).toFixed(4)) };
}

/** The badge the page should show for each site now. */
function openBadges(sites: MockSite[]): string[] {
  const now = timeOfDayNow();
  return sites.map((site) => {
    if (site.state !== 1) return 'Not in service';
    const open = isOpenAt(site, now);
    return open === null ? 'Hours unknown' : open ? 'Open now' : 'Closed';
  });
}

/** Picks `city` and returns the rows of its sites table once shown. */
async function chooseCity(page: Page, city: { code: string; name: string }) {
  await page.locator(`#city option[value="${city.code}"]`).waitFor({ state: 'attached' });
  await page.getByLabel('City', { exact: true }).selectOption(city.code);
  const table = page.getByRole('table', { name: `Sites in ${city.name}` });
  await table.waitFor({ state: 'visible' });
  await page.locator('#sites:not([aria-busy])').waitFor();
  return table.locator('tbody tr').evaluateAll((rows) => rows.map((row) => ({
    name: row.querySelector('.site-name')?.textContent ?? '',
    now: row.querySelector('.badge')?.textContent ?? '',
  })));
}

async function chooseProduct(page: Page, goodsCode: string): Promise<void> {
  await page.locator(`#product option[value="${goodsCode}"]`).waitFor({ state: 'attached' });
  await page.getByLabel('Product', { exact: true }).selectOption(goodsCode);
}

/** The rows of the availability table, once its caption starts with `caption`. */
async function availabilityRows(page: Page, caption: string) {
  const table = page.getByRole('table', { name: caption });
  await table.waitFor({ state: 'visible' });
  await page.locator('#availability:not([aria-busy])').waitFor();
  return table.locator('tbody tr').evaluateAll((rows) => rows.map((row) => {
    const cells = row.querySelectorAll('td');
    return {
      name: row.querySelector('.site-name')?.textContent ?? '',
      machine: cells[0]?.querySelector('.machine-name')?.textContent ?? '',
      slots: cells[0]?.querySelector('.detail')?.textContent ?? '',
      stock: cells[1]?.textContent ?? '',
      distance: cells[2]?.textContent ?? '',
    };
  }));
}
