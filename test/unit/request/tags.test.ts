/**
 * The tag list's rules (request/tags.ts): each tag once, sorted; past the cap the most numerous
 * kind of entity is named by its list first, then the next; a code no header may carry is named
 * by its list. A purge of an entity reaches the answers its list names as well.
 */
import { describe, expect, it } from 'vitest';
import { answerTagsPurged, createTags as createKinds, tagHeaders, TAGS_MAX_BYTES } from '../../../src/request/tags.js';

// Tags added as the purge endpoint names them (`site:S000001`, `cities`).
const createTags = () => {
  const tags = createKinds();
  return { add: (tag: string) => (tag.includes(':') ? tags.add(tag.slice(0, tag.indexOf(':')), tag.slice(tag.indexOf(':') + 1)) : tags.add(tag)), list: () => tags.list() };
};

const codes = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(6, '0')}`);

describe('the tags of an answer', () => {
  it('lists each tag once, sorted, in both header forms', () => {
    const tags = createTags();
    for (const tag of ['site:S000002', 'cities', 'site:S000001', 'site:S000002']) tags.add(tag);
    expect(tags.list()).toEqual(['cities', 'site:S000001', 'site:S000002']);
    expect(tagHeaders(tags.list())).toEqual({ 'surrogate-key': 'cities site:S000001 site:S000002', 'cache-tag': 'cities,site:S000001,site:S000002' });
    expect(tagHeaders([])).toBeUndefined();
  });

  it('names the most numerous kind by its list past the cap, and only as many kinds as it takes', () => {
    const tags = createTags();
    for (const code of codes('G', 200)) tags.add(`product:${code}`);
    for (const code of codes('S', 20)) tags.add(`site:${code}`);
    tags.add('sites');
    const listed = tags.list();
    expect(listed.filter((tag) => tag.startsWith('product'))).toEqual(['products']);
    expect(listed.filter((tag) => tag.startsWith('site:'))).toHaveLength(20);
    expect(listed.join(' ').length).toBeLessThanOrEqual(TAGS_MAX_BYTES);
  });

  it('collapses every kind when even the next one does not fit', () => {
    const tags = createTags();
    for (const code of codes('G', 300)) tags.add(`product:${code}`);
    for (const code of codes('S', 200)) tags.add(`site:${code}`);
    tags.add('city:SH');
    expect(tags.list()).toEqual(['city:SH', 'products', 'sites']);
  });

  it('names an entity whose code no header may carry by its list, and drops a tag of no known list', () => {
    const tags = createTags();
    for (const tag of ['site:S 1', 'product:G,1', 'city:上海', 'widget:a b']) tags.add(tag);
    expect(tags.list()).toEqual(['cities', 'products', 'sites']);
  });

  it("purges, with an entity's tag, the answers tagged by its list, which may show the entity", () => {
    expect(answerTagsPurged(['site:S000001', 'product:G00001', 'city:SH', 'site:S000002'])).toEqual([
      'site:S000001', 'product:G00001', 'city:SH', 'site:S000002', 'sites', 'products', 'cities',
    ]);
    expect(answerTagsPurged(['sites', 'widget:a', 'cities'])).toEqual(['sites', 'widget:a', 'cities']);
  });
});
