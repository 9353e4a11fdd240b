/**
 * A list's size, as the upstream's pages state it, prices the walks of the upstream budget. A
 * wrong one (a billion) must not cost each estimate seconds of CPU (found by the upstream fuzzer,
 * seed 997712855).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';

const CITY = '{ city(code: "SH") { code name } }';
const CITIES = '/api/city/list';
const billion = (items: unknown[]) => ({ raw: { body: JSON.stringify({ code: 0, msg: 'success', result: { items, total: 1e9 } }) } });

describe('the size of a list', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('prices a walk at most as the walk would run, whatever total the upstream states', async () => {
    h = await startGateway();
    const [city] = h.mock.catalog.cities;
    h.mock.fault(CITIES, billion([{ id: city!.id, name: city!.name, code: city!.code }]));
    expect((await h.query(CITY)).errors?.length).toBeGreaterThan(0);
    // The estimate counts the thousand calls a walk stops at, not the ten million pages a billion
    // makes (which took 12 s of CPU per estimate).
    const refused = await h.query(CITY);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'UPSTREAM_BUDGET_EXCEEDED' });
    expect(refused.errors?.[0]?.extensions?.estimate).toBeLessThanOrEqual(1000);
  });
});
