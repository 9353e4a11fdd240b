/**
 * Texts many records repeat are one string in the gateway's memory: two records parsed from two
 * answers share their product names and hours (counted in a heap snapshot, since JavaScript
 * compares strings by value), and the table sharing them stays within its bound.
 */
import { randomUUID } from 'node:crypto';
import { getHeapSnapshot } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { createInterner, TEXT_MAX_LENGTH } from '../../../src/upstream/intern.js';
import { normaliseSite } from '../../../src/upstream/normalise.js';
import type { SiteRecord } from '../../../src/upstream/records.js';

// Private: two sites as two answers would bring them, three lanes each holding one product; the
// wire's texts are dropped here, so only what the records keep is left.
function twoSites(): SiteRecord[] {
  const lane = { goodsCode: `G-${randomUUID()}`, productName: `Product ${randomUUID()}`, stock: 1 };
  const openTime = `09:${randomUUID()}`;
  const texts = ['S1', 'S2'].map((code) => JSON.stringify({ code, openTime, points: [{ code: `${code}-P1`, cargolanes: [lane, lane, lane] }] }));
  return texts.map((text) => {
    const record = normaliseSite(JSON.parse(text) as Record<string, unknown>, () => {});
    if (record === null) throw new Error(`twoSites: no record from ${text}`);
    return record;
  });
}

// Private: how many strings in the heap hold exactly `texts`, each (after the snapshot's full GC).
async function copiesInHeap(texts: string[]): Promise<number[]> {
  const chunks: string[] = [];
  for await (const chunk of getHeapSnapshot()) chunks.push(String(chunk));
  const snapshot = JSON.parse(chunks.join('')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }; nodes: number[]; strings: string[];
  };
  const { node_fields: fields, node_types: [types] } = snapshot.snapshot.meta;
  const [type, name] = [fields.indexOf('type'), fields.indexOf('name')];
  const counts = texts.map(() => 0);
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
    if (types[snapshot.nodes[i + type]!] !== 'string') continue;
    const at = texts.indexOf(snapshot.strings[snapshot.nodes[i + name]!]!);
    if (at >= 0) counts[at]! += 1;
  }
  return counts;
}

describe('interned upstream texts', () => {
  it('equal texts of two records, parsed from two answers, are one string', async () => {
    const sites = twoSites();
    const lanes = sites.flatMap((site) => site.points!.flatMap((point) => point.cargoLanes));
    expect(lanes).toHaveLength(6);
    expect(new Set(lanes.map((lane) => lane.productName)).size).toBe(1);
    expect(sites[0]!.openTime).toBe(sites[1]!.openTime);
    const [name, code] = [lanes[0]!.productName!, lanes[0]!.goodsCode!];
    // Six lanes parsed from two answers: one string each (without interning, 6 each). At most two
    // are counted, since V8 may keep an internalized twin beside a string, which a snapshot shows as two.
    const [names, codes] = await copiesInHeap([name, code]);
    expect(names).toBeLessThanOrEqual(2);
    expect(codes).toBeLessThanOrEqual(2);
  });

  it('a lane naming its product otherwise than the last lane with its code keeps its own texts', () => {
    const lane = (productName: string, productPic?: string) => ({ goodsCode: 'G1', productName, ...(productPic ? { productPic } : {}), stock: 1 });
    const site = normaliseSite({ code: 'S1', points: [{ code: 'P1', cargolanes: [lane('A', 'a.jpg'), lane('B', 'a.jpg'), lane('B'), lane('A', 'a.jpg')] }] }, () => {});
    expect(site!.points![0]!.cargoLanes.map((l) => [l.goodsCode, l.productName, l.productPic])).toEqual([
      ['G1', 'A', 'a.jpg'], ['G1', 'B', 'a.jpg'], ['G1', 'B', null], ['G1', 'A', 'a.jpg'],
    ]);
  });

  it('keeps at most its bound of texts, and passes long ones through', () => {
    const intern = createInterner(4);
    for (let i = 0; i < 10; i += 1) {
      const text = `text ${i}`;
      expect(intern(text)).toBe(text);
      expect(intern.size).toBeLessThanOrEqual(4);
    }
    expect(intern.size).toBe(2); // 10 texts: two fresh tables of 4, then 2
    const long = 'x'.repeat(TEXT_MAX_LENGTH + 1);
    expect(intern(long)).toBe(long);
    expect(intern.size).toBe(2);
  });
});
