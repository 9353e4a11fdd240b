import { describe, expect, it } from 'vitest';
import { createMockUpstream, type Catalog, type StockChange } from '../../../src/mock-upstream/index.js';
import { fetchToken, resultOf, useMock, type Page } from './client.js';

interface SiteRow { code: string; points: { code: string; cargolanes: { stock: unknown }[] }[] }

// Private: every lane's stock, keyed `site/point/index`.
function stockOf(catalog: Catalog): Map<string, number> {
  const stock = new Map<string, number>();
  for (const site of catalog.sites) {
    for (const point of site.points) point.cargolanes.forEach((lane, i) => stock.set(`${site.code}/${point.code}/${i}`, lane.stock));
  }
  return stock;
}

// Private: the lanes whose stock differs between two readings.
function changedKeys(before: Map<string, number>, after: Map<string, number>): string[] {
  return [...after].filter(([key, stock]) => before.get(key) !== stock).map(([key]) => key).sort();
}

const keyOf = (c: StockChange): string => `${c.siteCode}/${c.pointCode}/${c.laneIndex}`;

describe('mutateStock', () => {
  const mock = useMock();

  it('changes one lane by default, and site detail and list-with-points both serve the new stock', async () => {
    const token = await fetchToken(mock());
    expect(mock().mutateStock()).toHaveLength(1);
    const changes = mock().mutateStock({ lanes: 4, siteCodes: ['S000003', 'S000007'] });
    expect(changes).toHaveLength(4);
    for (const change of changes) {
      const siteIndex = mock().catalog.sites.findIndex((s) => s.code === change.siteCode);
      const detail = await resultOf<SiteRow>(mock(), '/api/site/detail', { token, query: { siteCode: change.siteCode } });
      const listed = await resultOf<Page<SiteRow>>(mock(), '/api/site/list-with-points', { token, query: { page: siteIndex + 1, pageSize: 1 } });
      expect(listed.items[0]?.code).toBe(change.siteCode);
      for (const served of [detail, listed.items[0]]) {
        const lane = served?.points.find((p) => p.code === change.pointCode)?.cargolanes[change.laneIndex];
        expect(lane?.stock).toBe(change.to);
      }
    }
  });

  it('changes only lanes of the named sites, exactly the ones it returns, each to a value other than its old one', () => {
    const before = stockOf(mock().catalog);
    const changes = mock().mutateStock({ lanes: 30, siteCodes: ['S000002', 'S000005'] });
    const after = stockOf(mock().catalog);
    expect(changedKeys(before, after)).toEqual(changes.map(keyOf).sort());
    expect(new Set(changes.map(keyOf)).size).toBe(30);
    for (const change of changes) {
      expect(['S000002', 'S000005']).toContain(change.siteCode);
      expect(change.from).toBe(before.get(keyOf(change)));
      expect(change.to).not.toBe(change.from);
      expect(change.to).toBeGreaterThanOrEqual(0);
      expect(change.to).toBeLessThanOrEqual(20);
    }
  });

  it('reports each lane with the product it holds, and never picks an empty slot', () => {
    const changes = mock().mutateStock({ lanes: 200 });
    for (const change of changes) {
      const lane = mock().catalog.sites.find((s) => s.code === change.siteCode)
        ?.points.find((p) => p.code === change.pointCode)?.cargolanes[change.laneIndex];
      expect(lane?.goodsCode).toBe(change.goodsCode);
      expect(change.goodsCode).toMatch(/^G\d{5}$/);
    }
  });

  it('lets lanes run out and come back, within maxStock', () => {
    const changes = Array.from({ length: 100 }, () => mock().mutateStock({ lanes: 5, siteCodes: ['S000001'], maxStock: 3 })).flat();
    expect(changes.every((c) => c.to >= 0 && c.to <= 3 && c.to !== c.from)).toBe(true);
    expect(changes.some((c) => c.to === 0)).toBe(true);
    expect(changes.some((c) => c.from === 0 && c.to > 0)).toBe(true);
  });

  it('refuses an unknown site, a lane count below 1, more lanes than there are, and a maxStock below 1', () => {
    const stocked = mock().catalog.sites[0]!.points.flatMap((p) => p.cargolanes).filter((l) => l.goodsCode).length;
    expect(() => mock().mutateStock({ siteCodes: ['S999999'] })).toThrow(/no site with code "S999999"/);
    expect(() => mock().mutateStock({ lanes: 0 })).toThrow(/lanes must be an integer >= 1, but got: 0/);
    expect(() => mock().mutateStock({ lanes: stocked + 1, siteCodes: ['S000001'] }))
      .toThrow(new RegExp(`at most the ${stocked} lanes holding a product there, but got: ${stocked + 1}`));
    expect(() => mock().mutateStock({ maxStock: 0 })).toThrow(/maxStock must be an integer >= 1, but got: 0/);
  });
});

describe('mutateStock reproducibility', () => {
  it('makes the same changes, call after call, on two mocks with the same mutationSeed', async () => {
    const [a, b, c] = await Promise.all([
      createMockUpstream({ mutationSeed: 42 }), createMockUpstream({ mutationSeed: 42 }), createMockUpstream({ mutationSeed: 43 }),
    ]);
    try {
      const run = (mock: typeof a) => [mock.mutateStock({ lanes: 3 }), mock.mutateStock({ lanes: 2, siteCodes: ['S000004'] })];
      const first = run(a);
      expect(run(b)).toEqual(first);
      expect(run(c)).not.toEqual(first);
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });

  it('makes the same changes for the same seed option over the same catalog, whatever was drawn before', async () => {
    const [a, b] = await Promise.all([createMockUpstream(), createMockUpstream()]);
    try {
      b.mutateStock({ lanes: 5, siteCodes: ['S000010'] }); // elsewhere, and a step further in b's own sequence
      const seeded = { lanes: 6, siteCodes: ['S000001', 'S000002'], seed: 7 };
      expect(b.mutateStock(seeded)).toEqual(a.mutateStock(seeded));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
