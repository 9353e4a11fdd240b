/**
 * An upstream that lists no sites (or only sites without coordinates) builds an empty index,
 * which answers empty lists: before, the empty kd-tree failed every index query with
 * INTERNAL_SERVER_ERROR (found by the upstream fuzzer).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';

describe('an empty catalog index', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('answers the index fields with empty lists', async () => {
    h = await startGateway();
    h.mock.fault('/api/site/list-with-points', { raw: { body: '{"code":0,"result":{"items":[],"total":0}}' } });
    const answer = await h.query(`{
      sites(cityCode: "SH", pageSize: 5) { total hasNextPage items { code } }
      sitesNear(lat: 31.2, lng: 121.5, radiusKm: 50) { site { code } }
    }`);
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({ sites: { total: 0, hasNextPage: false, items: [] }, sitesNear: [] });
  });
});
