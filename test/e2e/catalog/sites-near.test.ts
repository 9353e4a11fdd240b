import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  biggestCity, centreOf, distanceToSite, expectDataAge, expectedSitesNear, expectSameDistances, flattenNear,
  queryWithArgs, type NearArgs,
} from '../../helpers/beyond-expected.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import type { MockSite } from '../../../src/mock-upstream/index.js';

const NEAR_TYPES = {
  lat: 'Float!', lng: 'Float!', radiusKm: 'Float', first: 'Int', cityCode: 'String', openAt: 'String',
  enabledOnly: 'Boolean', hasProduct: 'String', inStockOnly: 'Boolean',
};

// Private: ask `sitesNear(args)` and return codes with distances (asserting no error).
async function near(h: Harness, args: NearArgs) {
  const { query, variables } = queryWithArgs('sitesNear', { ...args }, NEAR_TYPES, 'distanceKm site { code }');
  const response = await h.query(query, variables);
  expect(response.errors, JSON.stringify(args)).toBeUndefined();
  return { list: flattenNear(response.data.sitesNear), extensions: response.extensions };
}

// Private: a site's position as sitesNear arguments.
function at(site: MockSite) {
  return { lat: site.lat, lng: site.lng };
}

describe('sitesNear over the generated catalog', () => {
  let h: Harness;
  beforeAll(async () => { h = await startGateway(); });
  afterAll(() => h.close());

  it('lists the enabled sites within the radius, nearest first, with their haversine distances', async () => {
    const origin = centreOf(h.mock.catalog, biggestCity(h.mock.catalog));
    const args = { ...origin, radiusKm: 10, first: 100 };
    const expected = expectedSitesNear(h.mock.catalog, args);
    expect(expected.length).toBeGreaterThan(2);
    expect(expected.length).toBeLessThan(h.mock.catalog.sites.length);
    const { list, extensions } = await near(h, args);
    expectSameDistances(list, expected);
    expectDataAge(extensions);
  });

  it('uses a radius of 5 km and at most 20 sites by default', async () => {
    const site = h.mock.catalog.sites.find((candidate) => candidate.state === 1)!;
    const expected = expectedSitesNear(h.mock.catalog, at(site));
    expect(expected[0]).toEqual({ code: site.code, distanceKm: 0 });
    expectSameDistances((await near(h, at(site))).list, expected);
    const wide = { ...at(site), radiusKm: 1000 };
    const expectedWide = expectedSitesNear(h.mock.catalog, wide);
    expect(expectedWide).toHaveLength(20);
    expectSameDistances((await near(h, wide)).list, expectedWide);
  });

  it('includes a site whose distance equals the radius exactly and excludes it just below', async () => {
    const origin = centreOf(h.mock.catalog, biggestCity(h.mock.catalog));
    const all = (await near(h, { ...origin, radiusKm: 1000, first: 100 })).list;
    expectSameDistances(all, expectedSitesNear(h.mock.catalog, { ...origin, radiusKm: 1000, first: 100 }));
    // The radius is the distance the gateway itself reports (checked above against ours).
    const target = all[3]!;
    expect(all[4]!.distanceKm).toBeGreaterThan(target.distanceKm);
    const exactly = await near(h, { ...origin, radiusKm: target.distanceKm, first: 100 });
    expect(exactly.list).toEqual(all.slice(0, 4));
    const below = await near(h, { ...origin, radiusKm: target.distanceKm - 1e-9, first: 100 });
    expect(below.list).toEqual(all.slice(0, 3));
  });

  it('includes every site when the radius is exactly its distance', async () => {
    const site = h.mock.catalog.sites[2]!;
    const origin = { lat: site.lat + 0.031, lng: site.lng - 0.047 };
    const all = (await near(h, { ...origin, radiusKm: 1000, first: 100 })).list;
    expectSameDistances(all, expectedSitesNear(h.mock.catalog, { ...origin, radiusKm: 1000, first: 100 }));
    const missed: string[] = [];
    for (const [i, target] of all.entries()) {
      const { list } = await near(h, { ...origin, radiusKm: target.distanceKm, first: 100 });
      const expected = all.filter((entry) => entry.distanceKm <= target.distanceKm);
      if (JSON.stringify(list) !== JSON.stringify(expected)) missed.push(`#${i} ${target.code} at ${target.distanceKm} km`);
    }
    expect(missed).toEqual([]);
  });

  it('answers an empty list when no site is within the radius', async () => {
    const nowhere = { lat: -45, lng: -120, radiusKm: 1000 };
    expect(expectedSitesNear(h.mock.catalog, nowhere)).toEqual([]);
    expect((await near(h, nowhere)).list).toEqual([]);
    const site = h.mock.catalog.sites[0]!;
    const beside = { lat: site.lat + 0.01, lng: site.lng, radiusKm: 0.5 };
    expect(expectedSitesNear(h.mock.catalog, beside)).toEqual([]);
    expect((await near(h, beside)).list).toEqual([]);
  });

  it('returns at most `first` sites, the nearest ones', async () => {
    const origin = centreOf(h.mock.catalog, biggestCity(h.mock.catalog));
    const all = expectedSitesNear(h.mock.catalog, { ...origin, radiusKm: 1000, first: 100 });
    expect(all.length).toBeGreaterThan(7);
    const { list } = await near(h, { ...origin, radiusKm: 1000, first: 7 });
    expectSameDistances(list, all.slice(0, 7));
    expectSameDistances((await near(h, { ...origin, radiusKm: 1000, first: 1 })).list, all.slice(0, 1));
  });

  it('keeps only the sites of the city asked for, and trims the code', async () => {
    const origin = centreOf(h.mock.catalog, biggestCity(h.mock.catalog));
    const around = expectedSitesNear(h.mock.catalog, { ...origin, radiusKm: 1000, first: 100 });
    const otherCity = h.mock.catalog.sites.find((site) => site.code === around.at(-1)!.code)!.cityCode;
    expect(otherCity).not.toBe(biggestCity(h.mock.catalog));
    const args = { ...origin, radiusKm: 1000, first: 100, cityCode: otherCity };
    const expected = expectedSitesNear(h.mock.catalog, args);
    expect(expected.length).toBeGreaterThan(0);
    expectSameDistances((await near(h, args)).list, expected);
    expectSameDistances((await near(h, { ...args, cityCode: `  ${otherCity} ` })).list, expected);
    expect((await near(h, { ...args, cityCode: 'NO-SUCH-CITY' })).list).toEqual([]);
  });

  it('keeps only the sites open at openAt, given as HH:MM, HH:MM:SS or an ISO date-time', async () => {
    const origin = centreOf(h.mock.catalog, biggestCity(h.mock.catalog));
    const base = { ...origin, radiusKm: 1000, first: 100 };
    const all = expectedSitesNear(h.mock.catalog, base);
    for (const openAt of ['23:30', '00:30:00', '12:00', '2026-11-21T15:30:00Z', '2026-11-21T09:45:00+08:00']) {
      const expected = expectedSitesNear(h.mock.catalog, { ...base, openAt });
      expectSameDistances((await near(h, { ...base, openAt })).list, expected);
    }
    // The late hour really filters, and midday keeps every site (all open then).
    expect(expectedSitesNear(h.mock.catalog, { ...base, openAt: '23:30' }).length).toBeLessThan(all.length);
    expect(expectedSitesNear(h.mock.catalog, { ...base, openAt: '12:00' })).toEqual(all);
  });

  it('measures from the point asked, not from a site, so every distance matches ours', async () => {
    const site = h.mock.catalog.sites[1]!;
    const origin = { lat: site.lat + 0.05, lng: site.lng - 0.07 };
    const { list } = await near(h, { ...origin, radiusKm: 50, first: 100 });
    expect(list.length).toBeGreaterThan(0);
    for (const entry of list) {
      const found = h.mock.catalog.sites.find((candidate) => candidate.code === entry.code)!;
      expect(entry.distanceKm).toBeCloseTo(distanceToSite(origin, found), 6);
    }
  });
});

describe('sitesNear with a disabled site, unknown hours and missing coordinates', () => {
  let h: Harness;
  let disabled: MockSite;
  let unknownHours: MockSite;
  let noCoordinates: MockSite;
  let noCoordinatesWasAt: { lat: number; lng: number };

  beforeAll(async () => {
    h = await startGateway();
    // Three enabled sites of the biggest city, changed before the gateway's first query.
    const city = biggestCity(h.mock.catalog);
    [disabled, unknownHours, noCoordinates] = h.mock.catalog.sites
      .filter((site) => site.cityCode === city && site.state === 1) as [MockSite, MockSite, MockSite];
    disabled.state = 0;
    unknownHours.openTime = '';
    noCoordinatesWasAt = at(noCoordinates);
    Object.assign(noCoordinates, { lat: Number.NaN });
  });
  afterAll(() => h.close());

  it('leaves disabled sites out by default and with enabledOnly true, and keeps them with enabledOnly false', async () => {
    const args = { ...at(disabled), radiusKm: 30, first: 100 };
    const enabledOnly = expectedSitesNear(h.mock.catalog, args);
    expect(enabledOnly.map((entry) => entry.code)).not.toContain(disabled.code);
    expectSameDistances((await near(h, args)).list, enabledOnly);
    expectSameDistances((await near(h, { ...args, enabledOnly: true })).list, enabledOnly);
    const every = expectedSitesNear(h.mock.catalog, { ...args, enabledOnly: false });
    expect(every[0]).toEqual({ code: disabled.code, distanceKm: 0 });
    expectSameDistances((await near(h, { ...args, enabledOnly: false })).list, every);
  });

  it('leaves sites with unknown hours out when openAt is given', async () => {
    const args = { ...at(unknownHours), radiusKm: 30, first: 100 };
    const without = await near(h, args);
    expect(without.list[0]).toEqual({ code: unknownHours.code, distanceKm: 0 });
    const expected = expectedSitesNear(h.mock.catalog, { ...args, openAt: '12:00' });
    expect(expected.map((entry) => entry.code)).not.toContain(unknownHours.code);
    expectSameDistances((await near(h, { ...args, openAt: '12:00' })).list, expected);
  });

  it('never finds a site without valid coordinates', async () => {
    const args = { ...noCoordinatesWasAt, radiusKm: 1000, first: 100, enabledOnly: false };
    const expected = expectedSitesNear(h.mock.catalog, args);
    expect(expected.map((entry) => entry.code)).not.toContain(noCoordinates.code);
    expectSameDistances((await near(h, args)).list, expected);
  });
});

describe('sitesNear with hasProduct', () => {
  let h: Harness;
  let product: string;
  let soldOut: MockSite;

  beforeAll(async () => {
    h = await startGateway();
    // A product held by several enabled sites; at one of them every lane of it goes to 0.
    const { catalog } = h.mock;
    const holders = (code: string) => catalog.sites.filter((site) =>
      site.state === 1 && site.points.some((point) => point.cargolanes.some((lane) => lane.goodsCode === code)));
    product = catalog.products.map((p) => p.goodsCode).find((code) => holders(code).length >= 4)!;
    soldOut = holders(product)[0]!;
    for (const lane of soldOut.points.flatMap((point) => point.cargolanes)) {
      if (lane.goodsCode === product) lane.stock = 0;
    }
  });
  afterAll(() => h.close());

  it('keeps only the sites with the product in stock by default', async () => {
    const args = { ...at(soldOut), radiusKm: 1000, first: 100, hasProduct: product };
    const expected = expectedSitesNear(h.mock.catalog, args);
    expect(expected.length).toBeGreaterThan(1);
    expect(expected.map((entry) => entry.code)).not.toContain(soldOut.code);
    const { list, extensions } = await near(h, args);
    expectSameDistances(list, expected);
    expectDataAge(extensions);
    expectSameDistances((await near(h, { ...args, inStockOnly: true })).list, expected);
  });

  it('keeps the sites holding the product without stock when inStockOnly is false', async () => {
    const args = { ...at(soldOut), radiusKm: 1000, first: 100, hasProduct: product, inStockOnly: false };
    const expected = expectedSitesNear(h.mock.catalog, args);
    expect(expected[0]).toEqual({ code: soldOut.code, distanceKm: 0 });
    expect(expected.length).toBeLessThan(expectedSitesNear(h.mock.catalog, { ...args, hasProduct: undefined }).length);
    expectSameDistances((await near(h, args)).list, expected);
  });

  it('includes a holder at exactly its distance, cuts at first and filters by city', async () => {
    const args = { ...at(soldOut), radiusKm: 1000, first: 100, hasProduct: product, inStockOnly: false };
    const all = (await near(h, args)).list;
    expect(all.length).toBeGreaterThan(2);
    const target = all[2]!;
    expect((await near(h, { ...args, radiusKm: target.distanceKm })).list)
      .toEqual(all.filter((entry) => entry.distanceKm <= target.distanceKm));
    expectSameDistances((await near(h, { ...args, first: 2 })).list, all.slice(0, 2));
    const cityCode = soldOut.cityCode;
    expectSameDistances((await near(h, { ...args, cityCode })).list, expectedSitesNear(h.mock.catalog, { ...args, cityCode }));
  });

  it('finds nothing for a product no lane holds', async () => {
    const args = { ...at(soldOut), radiusKm: 1000, first: 100, hasProduct: 'G-NO-SUCH-PRODUCT' };
    expect((await near(h, args)).list).toEqual([]);
  });

  it('ignores inStockOnly without hasProduct', async () => {
    const args = { ...at(soldOut), radiusKm: 50, first: 100 };
    const expected = expectedSitesNear(h.mock.catalog, args);
    expect(expected[0]).toEqual({ code: soldOut.code, distanceKm: 0 });
    expectSameDistances((await near(h, { ...args, inStockOnly: true })).list, expected);
    expectSameDistances((await near(h, { ...args, inStockOnly: false })).list, expected);
  });
});
