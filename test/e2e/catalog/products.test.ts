import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AVAILABILITY_FIELDS, biggestCity, centreOf, expectDataAge, expectedAvailability, expectedSearch,
  expectedTotalStock, expectSameAvailability, productsByLaneCount, queryWithArgs, type AvailabilityArgs,
} from '../../helpers/beyond-expected.js';
import { expectedProduct, PRODUCT_FIELDS } from '../../helpers/expected.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import type { MockProduct, MockSite } from '../../../src/mock-upstream/index.js';

const SEARCH_TYPES = { text: 'String', ipName: 'String', first: 'Int' };

// Private: the goods codes `searchProducts(args)` answers (asserting no error).
async function search(h: Harness, args: { text?: string; ipName?: string; first?: number }): Promise<string[]> {
  const { query, variables } = queryWithArgs('searchProducts', args, SEARCH_TYPES, 'goodsCode');
  const { data, errors } = await h.query(query, variables);
  expect(errors, JSON.stringify(args)).toBeUndefined();
  return data.searchProducts.map((product: { goodsCode: string }) => product.goodsCode);
}

// Private: `product(goodsCode) { availability(args) }`, passing only the arguments given.
async function availability(h: Harness, goodsCode: string, args: AvailabilityArgs) {
  const types: Record<string, string> = {
    cityCode: 'String', near: 'GeoInput', radiusKm: 'Float', inStockOnly: 'Boolean', enabledOnly: 'Boolean', first: 'Int',
  };
  const names = Object.keys(args).filter((name) => args[name as keyof AvailabilityArgs] !== undefined);
  const declared = names.map((name) => `, $${name}: ${types[name]}`).join('');
  const passed = names.map((name) => `${name}: $${name}`).join(', ');
  const call = names.length === 0 ? 'availability' : `availability(${passed})`;
  const response = await h.query(
    `query($goodsCode: String!${declared}) { product(goodsCode: $goodsCode) { ${call} { ${AVAILABILITY_FIELDS} } } }`,
    { goodsCode, ...args },
  );
  expect(response.errors, JSON.stringify(args)).toBeUndefined();
  return { entries: response.data.product.availability, extensions: response.extensions };
}

// Private: the sites with a lane holding `goodsCode`, in catalog order.
function holdersOf(sites: MockSite[], goodsCode: string): MockSite[] {
  return sites.filter((site) => site.points.some((point) => point.cargolanes.some((lane) => lane.goodsCode === goodsCode)));
}

describe('searchProducts', () => {
  let h: Harness;
  let latin: MockProduct;
  beforeAll(async () => {
    h = await startGateway();
    // A product whose IP name is written in Latin letters, so that case means something.
    latin = h.mock.catalog.products.find((product) => /^[A-Za-z]{4}/.test(product.ipName))!;
  });
  afterAll(() => h.close());

  it('finds the products whose name contains the text, in any case, in upstream order', async () => {
    const part = latin.productName.slice(1, 5);
    const expected = expectedSearch(h.mock.catalog, { text: part, first: 100 });
    expect(expected).toContain(latin.goodsCode);
    expect(await search(h, { text: part.toUpperCase(), first: 100 })).toEqual(expected);
    expect(await search(h, { text: part.toLowerCase(), first: 100 })).toEqual(expected);
    expect(await search(h, { text: `  ${part} `, first: 100 })).toEqual(expected);
    // The kind of product at the end of its name: a substring in the middle of other names.
    const kind = latin.productName.split(' ').at(-1)!;
    const byKind = expectedSearch(h.mock.catalog, { text: kind, first: 100 });
    expect(byKind.length).toBeGreaterThan(1);
    expect(await search(h, { text: kind, first: 100 })).toEqual(byKind);
  });

  it('answers the products’ own fields, as the product list has them', async () => {
    const { data, errors, extensions } = await h.query(
      `query($text: String) { searchProducts(text: $text) { ${PRODUCT_FIELDS} } }`,
      { text: latin.productName },
    );
    expect(errors).toBeUndefined();
    const expected = expectedSearch(h.mock.catalog, { text: latin.productName })
      .map((code) => expectedProduct(h.mock.catalog.products.find((product) => product.goodsCode === code)!));
    expect(data.searchProducts.map(({ id: _id, ...rest }: { id: string }) => rest)).toEqual(expected);
    expectDataAge(extensions);
  });

  it('matches the whole IP name in any case, and no part of it', async () => {
    const expected = expectedSearch(h.mock.catalog, { ipName: latin.ipName, first: 100 });
    expect(expected.length).toBeGreaterThan(1);
    expect(await search(h, { ipName: latin.ipName.toUpperCase(), first: 100 })).toEqual(expected);
    expect(await search(h, { ipName: ` ${latin.ipName.toLowerCase()}  `, first: 100 })).toEqual(expected);
    expect(await search(h, { ipName: latin.ipName.slice(0, -1), first: 100 })).toEqual([]);
    const other = h.mock.catalog.products.find((product) => !/^[A-Za-z]/.test(product.ipName))!;
    expect(await search(h, { ipName: other.ipName, first: 100 }))
      .toEqual(expectedSearch(h.mock.catalog, { ipName: other.ipName, first: 100 }));
  });

  it('requires both the text and the IP when both are given', async () => {
    const kind = latin.productName.split(' ').at(-1)!;
    const both = expectedSearch(h.mock.catalog, { text: kind, ipName: latin.ipName, first: 100 });
    expect(both).toContain(latin.goodsCode);
    expect(both.length).toBeLessThan(expectedSearch(h.mock.catalog, { text: kind, first: 100 }).length);
    expect(both.length).toBeLessThan(expectedSearch(h.mock.catalog, { ipName: latin.ipName, first: 100 }).length);
    expect(await search(h, { text: kind.toUpperCase(), ipName: latin.ipName.toUpperCase(), first: 100 })).toEqual(both);
    expect(await search(h, { text: 'no such product name', ipName: latin.ipName })).toEqual([]);
  });

  it('finds nothing, without an error, for a text or IP name longer than any name', async () => {
    const long = latin.productName.repeat(8);
    expect(long.length).toBeGreaterThan(128);
    expect(expectedSearch(h.mock.catalog, { text: long })).toEqual([]);
    expect(await search(h, { text: long })).toEqual([]);
    expect(await search(h, { ipName: long })).toEqual([]);
  });

  it('returns at most `first` products, 20 by default', async () => {
    const all = expectedSearch(h.mock.catalog, { ipName: latin.ipName, first: 100 });
    expect(await search(h, { ipName: latin.ipName, first: 2 })).toEqual(all.slice(0, 2));
    const codes = h.mock.catalog.products.map((product) => product.goodsCode);
    expect(await search(h, {})).toEqual(codes.slice(0, 20));
    expect(await search(h, { first: 100 })).toEqual(codes.slice(0, 100));
    expect(await search(h, { text: '', ipName: '  ', first: 5 })).toEqual(codes.slice(0, 5));
  });

  it('finds "Pokémon" from "Pokemon", "POKEMON" and full-width "ＰＯＫＥＭＯＮ", by name and by IP name', async () => {
    const pokemon = h.mock.catalog.products.filter((product) => product.ipName === 'Pokémon').map((product) => product.goodsCode);
    expect(pokemon.length).toBeGreaterThan(1);
    expect(expectedSearch(h.mock.catalog, { text: 'Pokemon', first: 100 })).toEqual(pokemon);
    for (const text of ['Pokemon', 'POKEMON', 'ＰＯＫＥＭＯＮ', 'pokémon', 'Ｐｏｋéｍｏｎ']) {
      expect(await search(h, { text, first: 100 }), text).toEqual(pokemon);
      expect(await search(h, { ipName: text, first: 100 }), text).toEqual(pokemon);
    }
    const kind = h.mock.catalog.products.find((product) => product.ipName === 'Pokémon')!.productName.split(' ').at(-1)!;
    expect(await search(h, { text: `pokemon 第`, ipName: 'POKEMON', first: 100 })).toEqual(pokemon);
    expect(await search(h, { text: kind, ipName: 'ＰＯＫＥＭＯＮ', first: 100 }))
      .toEqual(expectedSearch(h.mock.catalog, { text: kind, ipName: 'Pokémon', first: 100 }));
  });
});

describe('Product.availability and Product.totalStock', () => {
  let h: Harness;
  let goodsCode: string;
  let zeroLaneSite: MockSite;
  let disabledSite: MockSite;
  let noCoordinatesSite: MockSite;
  let unheld: MockProduct;

  beforeAll(async () => {
    h = await startGateway();
    const { catalog } = h.mock;
    // The product in the most lanes; three of its sites changed before the first query: one
    // lane sold out, one site disabled, one site without coordinates.
    goodsCode = productsByLaneCount(catalog)[0]!;
    const holders = holdersOf(catalog.sites, goodsCode);
    expect(holders.length).toBeGreaterThanOrEqual(5);
    [zeroLaneSite, disabledSite, noCoordinatesSite] = [holders[0]!, holders[1]!, holders[2]!];
    zeroLaneSite.points.flatMap((point) => point.cargolanes).find((lane) => lane.goodsCode === goodsCode)!.stock = 0;
    disabledSite.state = 0;
    Object.assign(noCoordinatesSite, { lng: 'not a number' });
    // A product added to the end of the list, in no lane.
    const last = catalog.products.at(-1)!;
    unheld = { ...last, goodsCode: 'G-UNHELD', skuCode: 'SKU-UNHELD', orderPic: last.orderPic.replace(last.goodsCode, 'G-UNHELD') };
    catalog.products.push(unheld);
  });
  afterAll(() => h.close());

  it('answers every product’s total stock over all lanes of all sites', async () => {
    const { data, errors, extensions } = await h.query(`{ products(pageSize: 100) { items { goodsCode totalStock } } }`);
    expect(errors).toBeUndefined();
    expect(data.products.items).toEqual(h.mock.catalog.products.map((product) => ({
      goodsCode: product.goodsCode, totalStock: expectedTotalStock(h.mock.catalog, product.goodsCode),
    })));
    expectDataAge(extensions);
  });

  it('lists the product’s lanes in stock in upstream order without near, sites not in service left out', async () => {
    const expected = expectedAvailability(h.mock.catalog, goodsCode);
    const codes = expected.map((entry) => entry.site.code);
    expect(codes).not.toContain(disabledSite.code);
    expect(codes).toContain(noCoordinatesSite.code);
    expect(expected.every((entry) => entry.stock > 0)).toBe(true);
    const { entries, extensions } = await availability(h, goodsCode, {});
    expectSameAvailability(entries, expected);
    expectDataAge(extensions);
    expectSameAvailability((await availability(h, goodsCode, { inStockOnly: true })).entries, expected);
    expectSameAvailability((await availability(h, goodsCode, { enabledOnly: true })).entries, expected);
  });

  it('lists the lanes of sites not in service too when enabledOnly is false, with or without near', async () => {
    const expected = expectedAvailability(h.mock.catalog, goodsCode, { enabledOnly: false });
    expect(expected.map((entry) => entry.site.code)).toContain(disabledSite.code);
    expectSameAvailability((await availability(h, goodsCode, { enabledOnly: false })).entries, expected);
    const near = { lat: disabledSite.lat, lng: disabledSite.lng };
    const sorted = expectedAvailability(h.mock.catalog, goodsCode, { near, enabledOnly: false });
    expect(sorted[0]!.site.code).toBe(disabledSite.code);
    expectSameAvailability((await availability(h, goodsCode, { near, enabledOnly: false })).entries, sorted);
    const nearest = (await availability(h, goodsCode, { near })).entries;
    expect(nearest.map((entry: { site: { code: string } }) => entry.site.code)).not.toContain(disabledSite.code);
  });

  it('keeps the lanes without stock when inStockOnly is false', async () => {
    const expected = expectedAvailability(h.mock.catalog, goodsCode, { inStockOnly: false });
    expect(expected.some((entry) => entry.stock === 0 && entry.site.code === zeroLaneSite.code)).toBe(true);
    expectSameAvailability((await availability(h, goodsCode, { inStockOnly: false })).entries, expected);
  });

  it('sorts by distance from near, nearest first, leaving out sites without coordinates', async () => {
    const near = centreOf(h.mock.catalog, biggestCity(h.mock.catalog));
    for (const inStockOnly of [true, false]) {
      const expected = expectedAvailability(h.mock.catalog, goodsCode, { near, inStockOnly });
      expect(expected.map((entry) => entry.site.code)).not.toContain(noCoordinatesSite.code);
      expectSameAvailability((await availability(h, goodsCode, { near, inStockOnly })).entries, expected);
    }
  });

  it('bounds the lanes by radiusKm around near', async () => {
    const near = centreOf(h.mock.catalog, biggestCity(h.mock.catalog));
    const all = expectedAvailability(h.mock.catalog, goodsCode, { near, inStockOnly: false });
    const distances = [...new Set(all.map((entry) => entry.distanceKm!))];
    expect(distances.length).toBeGreaterThanOrEqual(3);
    // Half-way between two sites' distances, so no site sits on the boundary.
    const radiusKm = (distances[1]! + distances[2]!) / 2;
    const expected = expectedAvailability(h.mock.catalog, goodsCode, { near, radiusKm, inStockOnly: false });
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(all.length);
    expectSameAvailability((await availability(h, goodsCode, { near, radiusKm, inStockOnly: false })).entries, expected);
  });

  it('keeps only the lanes of the sites of cityCode, with or without near', async () => {
    const cityCode = zeroLaneSite.cityCode;
    const expected = expectedAvailability(h.mock.catalog, goodsCode, { cityCode, inStockOnly: false });
    expect(expected.length).toBeGreaterThan(0);
    expectSameAvailability((await availability(h, goodsCode, { cityCode, inStockOnly: false })).entries, expected);
    const near = { lat: zeroLaneSite.lat, lng: zeroLaneSite.lng };
    const sorted = expectedAvailability(h.mock.catalog, goodsCode, { cityCode, near, inStockOnly: false });
    expectSameAvailability((await availability(h, goodsCode, { cityCode, near, inStockOnly: false })).entries, sorted);
    expectSameAvailability((await availability(h, goodsCode, { cityCode: ` ${cityCode}  `, inStockOnly: false })).entries, expected);
    expect((await availability(h, goodsCode, { cityCode: 'NO-SUCH-CITY' })).entries).toEqual([]);
  });

  it('returns at most `first` lanes, with and without near', async () => {
    const near = centreOf(h.mock.catalog, biggestCity(h.mock.catalog));
    const unsorted = expectedAvailability(h.mock.catalog, goodsCode, { first: 3 });
    expect(unsorted).toHaveLength(3);
    expectSameAvailability((await availability(h, goodsCode, { first: 3 })).entries, unsorted);
    const sorted = expectedAvailability(h.mock.catalog, goodsCode, { near, first: 2 });
    expectSameAvailability((await availability(h, goodsCode, { near, first: 2 })).entries, sorted);
  });

  it('answers no lanes and a total stock of 0 for a product no lane holds', async () => {
    const { data, errors } = await h.query(
      `query($code: String!) { product(goodsCode: $code) { totalStock availability(inStockOnly: false) { stock } } }`,
      { code: unheld.goodsCode },
    );
    expect(errors).toBeUndefined();
    expect(expectedAvailability(h.mock.catalog, unheld.goodsCode, { inStockOnly: false })).toEqual([]);
    expect(data.product).toEqual({ totalStock: 0, availability: [] });
  });
});
