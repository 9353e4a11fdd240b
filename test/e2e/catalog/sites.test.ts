import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { biggestCity, expectDataAge, expectedPage, expectedStockSummary } from '../../helpers/beyond-expected.js';
import { expectedSite, SITE_FIELDS } from '../../helpers/expected.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import type { MockSite } from '../../../src/mock-upstream/index.js';

const PAGE_FIELDS = `total page pageSize hasNextPage items { code }`;

// Private: `{ code }` of each site, as a page's items.
function codes(sites: MockSite[]) {
  return sites.map((site) => ({ code: site.code }));
}

// Private: `sites(args) { total page pageSize hasNextPage items { code } }`.
async function sitesPage(h: Harness, args: string) {
  const response = await h.query(`{ sites(${args}) { ${PAGE_FIELDS} } }`);
  expect(response.errors, args).toBeUndefined();
  return { page: response.data.sites, extensions: response.extensions };
}

describe('Query.sites with and without filters', () => {
  let h: Harness;
  beforeAll(async () => { h = await startGateway(); });
  afterAll(() => h.close());

  it('still answers the upstream list without filters, and with enabledOnly false alone', async () => {
    const { sites } = h.mock.catalog;
    const full = await h.query(`{ sites(pageSize: 100) { total items { ${SITE_FIELDS} } } }`);
    expect(full.errors).toBeUndefined();
    expect(full.data.sites.total).toBe(sites.length);
    expect(full.data.sites.items.map(({ id: _id, siteType: _t, gradeType: _g, ...rest }: any) => rest))
      .toEqual(sites.map(expectedSite));
    const cases: [string, number, number][] = [
      ['page: 2, pageSize: 7', 2, 7], ['page: 2, pageSize: 7, enabledOnly: false', 2, 7], ['enabledOnly: false', 1, 10],
    ];
    for (const [args, page, pageSize] of cases) {
      const answer = await sitesPage(h, args);
      expect(answer.page, args).toEqual(expectedPage(codes(sites), page, pageSize));
      expect(answer.extensions?.dataAge, args).toBeUndefined();
    }
  });

  it('keeps only the sites of the city asked for, in upstream order, paged', async () => {
    for (const city of h.mock.catalog.cities) {
      const matching = h.mock.catalog.sites.filter((site) => site.cityCode === city.code);
      const { page, extensions } = await sitesPage(h, `cityCode: "${city.code}", pageSize: 100`);
      expect(page, city.code).toEqual(expectedPage(codes(matching), 1, 100));
      expectDataAge(extensions);
    }
    const big = biggestCity(h.mock.catalog);
    const matching = codes(h.mock.catalog.sites.filter((site) => site.cityCode === big));
    expect(matching.length).toBeGreaterThan(4);
    expect((await sitesPage(h, `cityCode: "${big}", page: 2, pageSize: 2`)).page).toEqual(expectedPage(matching, 2, 2));
    const lastPage = Math.ceil(matching.length / 2);
    expect((await sitesPage(h, `cityCode: " ${big} ", page: ${lastPage}, pageSize: 2`)).page)
      .toEqual(expectedPage(matching, lastPage, 2));
    expect((await sitesPage(h, `cityCode: "NO-SUCH-CITY"`)).page).toEqual(expectedPage([], 1, 10));
  });

  it('keeps only the enabled sites with enabledOnly true, in upstream order, paged', async () => {
    const enabled = codes(h.mock.catalog.sites.filter((site) => site.state === 1));
    expect(enabled.length).toBeLessThan(h.mock.catalog.sites.length);
    const { page, extensions } = await sitesPage(h, `enabledOnly: true, pageSize: 100`);
    expect(page).toEqual(expectedPage(enabled, 1, 100));
    expectDataAge(extensions);
    expect((await sitesPage(h, `enabledOnly: true, page: 3, pageSize: 20`)).page).toEqual(expectedPage(enabled, 3, 20));
  });

  it('applies both filters together', async () => {
    const city = h.mock.catalog.sites.find((site) => site.state !== 1)!.cityCode;
    const inCity = h.mock.catalog.sites.filter((site) => site.cityCode === city);
    const both = codes(inCity.filter((site) => site.state === 1));
    expect(both.length).toBeLessThan(inCity.length);
    expect((await sitesPage(h, `cityCode: "${city}", enabledOnly: true, pageSize: 100`)).page)
      .toEqual(expectedPage(both, 1, 100));
    expect((await sitesPage(h, `cityCode: "${city}", enabledOnly: false, pageSize: 100`)).page)
      .toEqual(expectedPage(codes(inCity), 1, 100));
  });
});

describe('City.sites', () => {
  let h: Harness;
  beforeAll(async () => { h = await startGateway(); });
  afterAll(() => h.close());

  it('pages every city’s sites in upstream order, with their count', async () => {
    const { data, errors, extensions } = await h.query(
      `{ cities(pageSize: 100) { items { code sites(pageSize: 100) { ${PAGE_FIELDS} } } } }`,
    );
    expect(errors).toBeUndefined();
    expect(data.cities.items).toEqual(h.mock.catalog.cities.map((city) => ({
      code: city.code,
      sites: expectedPage(codes(h.mock.catalog.sites.filter((site) => site.cityCode === city.code)), 1, 100),
    })));
    expectDataAge(extensions);
  });

  it('answers later pages and the default page size of 10', async () => {
    const big = biggestCity(h.mock.catalog);
    const matching = codes(h.mock.catalog.sites.filter((site) => site.cityCode === big));
    const { data, errors } = await h.query(
      `query($code: String!) { city(code: $code) {
         a: sites(page: 2, pageSize: 3) { ${PAGE_FIELDS} }
         b: sites { ${PAGE_FIELDS} }
         c: sites(page: 99, pageSize: 3) { ${PAGE_FIELDS} } } }`,
      { code: big },
    );
    expect(errors).toBeUndefined();
    expect(data.city).toEqual({
      a: expectedPage(matching, 2, 3),
      b: expectedPage(matching, 1, 10),
      c: expectedPage(matching, 99, 3),
    });
  });
});

describe('Site.stockSummary', () => {
  let h: Harness;
  let changed: MockSite;

  beforeAll(async () => {
    h = await startGateway();
    // One site gets a sold-out lane, an empty slot and a lane whose stock the upstream omits.
    changed = h.mock.catalog.sites[4]!;
    const [soldOut, emptied, unknown] = changed.points[0]!.cargolanes;
    soldOut!.stock = 0;
    delete emptied!.goodsCode;
    emptied!.stock = 0;
    Object.assign(unknown!, { stock: undefined });
  });
  afterAll(() => h.close());

  it('counts lanes, empty lanes and items of every site', async () => {
    const { data, errors } = await h.query(
      `{ sites(pageSize: 100) { items { code stockSummary { lanes emptyLanes totalStock } } } }`,
    );
    expect(errors).toBeUndefined();
    expect(data.sites.items).toEqual(h.mock.catalog.sites.map((site) => ({
      code: site.code, stockSummary: expectedStockSummary(site),
    })));
  });

  it('counts an empty slot, a sold-out lane and a lane without stock as empty lanes', async () => {
    const { data, errors } = await h.query(
      `query($code: String!) { site(code: $code) { stockSummary { lanes emptyLanes totalStock } } }`,
      { code: changed.code },
    );
    expect(errors).toBeUndefined();
    const expected = expectedStockSummary(changed);
    expect(expected.emptyLanes).toBeGreaterThanOrEqual(3);
    expect(data.site.stockSummary).toEqual(expected);
  });
});
