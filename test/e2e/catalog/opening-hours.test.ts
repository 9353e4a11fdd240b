import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_TIME_ZONE, expectedSitesNear, expectSameDistances, flattenNear, hhmmss, isOpenAt, timeOfDayAt, timeOfDayNow,
} from '../../helpers/beyond-expected.js';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import type { Catalog, MockSite } from '../../../src/mock-upstream/index.js';

/** Sites given known hours before a gateway's first query. */
interface HoursSites {
  night: MockSite;
  day: MockSite;
  allDay: MockSite;
  unknown: MockSite;
  unparseable: MockSite;
}

// Private: set the hours of five sites; the night one is also disabled (isOpen ignores that).
function setHours(catalog: Catalog): HoursSites {
  const [night, day, allDay, unknown, unparseable] = catalog.sites as [MockSite, MockSite, MockSite, MockSite, MockSite];
  Object.assign(night, { openTime: '22:00:00', closeTime: '02:00:00', state: 0 });
  Object.assign(day, { openTime: '10:00:00', closeTime: '22:00:00' });
  Object.assign(allDay, { openTime: '09:00:00', closeTime: '09:00:00' });
  Object.assign(unknown, { openTime: '' });
  Object.assign(unparseable, { closeTime: 'late' });
  return { night, day, allDay, unknown, unparseable };
}

// Private: `isOpen(at:)` of one site at several times, as a map from `at` to the answer.
async function openAt(h: Harness, site: MockSite, times: string[]): Promise<Record<string, boolean | null>> {
  const aliases = times.map((at, i) => `t${i}: isOpen(at: ${JSON.stringify(at)})`).join(' ');
  const { data, errors } = await h.query(`query($code: String!) { site(code: $code) { ${aliases} } }`, { code: site.code });
  expect(errors, times.join(', ')).toBeUndefined();
  return Object.fromEntries(times.map((at, i) => [at, data.site[`t${i}`]]));
}

describe('Site.isOpen in the default time zone', () => {
  let h: Harness;
  let sites: HoursSites;
  beforeAll(async () => {
    h = await startGateway();
    sites = setHours(h.mock.catalog);
  });
  afterAll(() => h.close());

  it('is open from the opening time included to the closing time excluded, across midnight', async () => {
    expect(await openAt(h, sites.night, ['22:00', '23:00', '00:00', '01:59', '01:59:59', '02:00', '02:00:00', '21:59', '21:59:59', '12:00']))
      .toEqual({
        '22:00': true, '23:00': true, '00:00': true, '01:59': true, '01:59:59': true,
        '02:00': false, '02:00:00': false, '21:59': false, '21:59:59': false, '12:00': false,
      });
  });

  it('is open from the opening time included to the closing time excluded within a day', async () => {
    expect(await openAt(h, sites.day, ['09:59:59', '10:00', '10:00:00', '21:59:59', '22:00', '23:30', '00:00']))
      .toEqual({
        '09:59:59': false, '10:00': true, '10:00:00': true, '21:59:59': true, '22:00': false, '23:30': false, '00:00': false,
      });
  });

  it('is open all day when the opening and closing times are equal', async () => {
    expect(await openAt(h, sites.allDay, ['00:00', '08:59:59', '09:00', '23:59:59']))
      .toEqual({ '00:00': true, '08:59:59': true, '09:00': true, '23:59:59': true });
  });

  it('answers null when the hours are missing or unparseable', async () => {
    expect(await openAt(h, sites.unknown, ['12:00', '2026-11-21T12:00:00+08:00'])).toEqual({
      '12:00': null, '2026-11-21T12:00:00+08:00': null,
    });
    expect(await openAt(h, sites.unparseable, ['12:00'])).toEqual({ '12:00': null });
  });

  it('reads an ISO date-time in the sites’ time zone, with an offset, Z or none', async () => {
    // 23:30 in Asia/Shanghai, written five ways; then 02:30 there.
    const lateEvening = [
      '2026-11-21T23:30:00+08:00', '2026-11-21T15:30:00Z', '2026-11-21T15:30:00.000Z', '2026-11-21T23:30+08:00', '2026-11-21T23:30:00',
    ];
    for (const at of lateEvening) expect(timeOfDayAt(at)).toBe(timeOfDayAt('23:30'));
    const afterClosing = '2026-11-21T18:30:00Z';
    expect(await openAt(h, sites.night, [...lateEvening, afterClosing])).toEqual({
      ...Object.fromEntries(lateEvening.map((at) => [at, true])), [afterClosing]: false,
    });
    expect(await openAt(h, sites.day, lateEvening)).toEqual(Object.fromEntries(lateEvening.map((at) => [at, false])));
    expect(await openAt(h, sites.day, ['2026-11-21T10:00:00+08:00', '2026-11-21T01:59:59Z', '2026-11-22T02:00:00+08:00']))
      .toEqual({ '2026-11-21T10:00:00+08:00': true, '2026-11-21T01:59:59Z': false, '2026-11-22T02:00:00+08:00': false });
  });

  it('agrees with the catalog’s hours for every site at several times', async () => {
    const times = ['00:30', '01:30:00', '09:15', '10:15', '21:15', '22:15', '2026-11-21T17:00:00Z'];
    const aliases = times.map((at, i) => `t${i}: isOpen(at: "${at}")`).join(' ');
    const { data, errors } = await h.query(`{ sites(pageSize: 100) { items { code ${aliases} } } }`);
    expect(errors).toBeUndefined();
    expect(data.sites.items).toEqual(h.mock.catalog.sites.map((site) => ({
      code: site.code,
      ...Object.fromEntries(times.map((at, i) => [`t${i}`, isOpenAt(site, timeOfDayAt(at))])),
    })));
  });

  it('answers the same for sites reached through sitesNear', async () => {
    const { day } = sites;
    const { data, errors } = await h.query(
      `query($lat: Float!, $lng: Float!) { sitesNear(lat: $lat, lng: $lng, radiusKm: 1000, enabledOnly: false) {
         site { code a: isOpen(at: "09:45") b: isOpen(at: "22:30") c: isOpen(at: "2026-11-21T15:30:00Z") } } }`,
      { lat: day.lat, lng: day.lng },
    );
    expect(errors).toBeUndefined();
    expect(data.sitesNear.length).toBeGreaterThan(1);
    for (const { site } of data.sitesNear) {
      const record = h.mock.catalog.sites.find((candidate) => candidate.code === site.code)!;
      expect(site, site.code).toEqual({
        code: site.code,
        a: isOpenAt(record, timeOfDayAt('09:45')),
        b: isOpenAt(record, timeOfDayAt('22:30')),
        c: isOpenAt(record, timeOfDayAt('2026-11-21T15:30:00Z')),
      });
    }
  });

  it('answers for the current time in the sites’ time zone without at', async () => {
    const before = isOpenAt(sites.day, timeOfDayNow(DEFAULT_TIME_ZONE));
    const { data, errors } = await h.query(`query($code: String!) { site(code: $code) { isOpen } }`, { code: sites.day.code });
    const after = isOpenAt(sites.day, timeOfDayNow(DEFAULT_TIME_ZONE));
    expect(errors).toBeUndefined();
    // Unless the query straddled an opening or closing, both readings agree.
    expect([before, after]).toContain(data.site.isOpen);
    expect(typeof data.site.isOpen).toBe('boolean');
  });
});

describe('Site.isOpen without at', () => {
  let h: Harness;
  afterAll(() => h.close());

  it('answers for the time of each request, not from an earlier answer', async () => {
    h = await startGateway();
    // A site that opens three seconds from now (real time) and stays open for an hour.
    const site = h.mock.catalog.sites[0]!;
    const opensAt = timeOfDayNow(DEFAULT_TIME_ZONE) + 3;
    Object.assign(site, { openTime: hhmmss(opensAt), closeTime: hhmmss(opensAt + 3600) });
    const query = `query($code: String!) { site(code: $code) { isOpen } }`;
    const before = await h.query(query, { code: site.code });
    expect(before.errors).toBeUndefined();
    expect(before.data.site.isOpen).toBe(isOpenAt(site, timeOfDayNow(DEFAULT_TIME_ZONE)));
    await sleep(3_500);
    expect(isOpenAt(site, timeOfDayNow(DEFAULT_TIME_ZONE))).toBe(true);
    const after = await h.query(query, { code: site.code });
    expect(after.errors).toBeUndefined();
    expect(after.data.site.isOpen).toBe(true);
  });
});

describe('Site.isOpen with SITE_TIMEZONE set to another zone', () => {
  const timeZone = 'America/New_York';
  let h: Harness;
  let sites: HoursSites;
  beforeAll(async () => {
    h = await startGateway({ env: { SITE_TIMEZONE: timeZone } });
    sites = setHours(h.mock.catalog);
  });
  afterAll(() => h.close());

  it('reads an ISO date-time with an offset in that zone', async () => {
    // 15:30Z is 10:30 in New York (23:30 in Shanghai): the day site is open, the night one not.
    const at = '2026-11-21T15:30:00Z';
    expect(isOpenAt(sites.day, timeOfDayAt(at, timeZone))).toBe(true);
    expect(isOpenAt(sites.day, timeOfDayAt(at, DEFAULT_TIME_ZONE))).toBe(false);
    expect(await openAt(h, sites.day, [at, '2026-11-21T23:30:00+08:00'])).toEqual({ [at]: true, '2026-11-21T23:30:00+08:00': true });
    expect(await openAt(h, sites.night, [at])).toEqual({ [at]: false });
    expect(await openAt(h, sites.night, ['2026-11-22T03:30:00Z'])).toEqual({ '2026-11-22T03:30:00Z': true });
  });

  it('reads HH:MM and an ISO date-time without offset as that zone’s wall-clock time', async () => {
    expect(await openAt(h, sites.day, ['23:30', '10:30', '2026-11-21T23:30:00', '2026-11-21T10:30:00']))
      .toEqual({ '23:30': false, '10:30': true, '2026-11-21T23:30:00': false, '2026-11-21T10:30:00': true });
  });

  it('filters sitesNear by openAt in that zone', async () => {
    const args = { lat: sites.day.lat, lng: sites.day.lng, radiusKm: 1000, first: 100, enabledOnly: false, openAt: '2026-11-21T15:30:00Z' };
    const expected = expectedSitesNear(h.mock.catalog, args, timeZone);
    expect(expected[0]).toEqual({ code: sites.day.code, distanceKm: 0 });
    expect(expected).not.toEqual(expectedSitesNear(h.mock.catalog, args, DEFAULT_TIME_ZONE));
    const { data, errors } = await h.query(
      `query($lat: Float!, $lng: Float!, $openAt: String) {
         sitesNear(lat: $lat, lng: $lng, radiusKm: 1000, first: 100, enabledOnly: false, openAt: $openAt) { distanceKm site { code } } }`,
      { lat: args.lat, lng: args.lng, openAt: args.openAt },
    );
    expect(errors).toBeUndefined();
    expectSameDistances(flattenNear(data.sitesNear), expected);
  });
});
