/**
 * Search text is bounded as search compares it, folded (src/catalog/catalog.ts `fold`), not only
 * as given: folding takes compatibility forms apart, and U+FDFA (ﷺ) becomes 18 characters, so
 * 1,000 of them would be 18,000 characters and 17,999 pieces looked up per alias. Such text is
 * refused with BAD_USER_INPUT before the index is read (no upstream call); text that folds to
 * 1,000 characters or fewer is searched as before.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_TEXT_LENGTH } from '../../../src/graph/arguments/values.js';
import { callsByPath, startGateway, type Harness } from '../../helpers/gateway.js';

const LIGATURE = '\uFDFA';
const LIGATURE_FOLDED = 18;
const ALIASES = 15;
const SEARCHES = `query($t: String) { ${Array.from({ length: ALIASES }, (_, i) => `a${i}: searchProducts(text: $t) { goodsCode }`).join(' ')} }`;

describe('search text that grows when folded', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('is refused with BAD_USER_INPUT, naming its folded length, before any upstream call', async () => {
    h = await startGateway();
    expect(LIGATURE.normalize('NFKD')).toHaveLength(LIGATURE_FOLDED);
    const text = LIGATURE.repeat(MAX_TEXT_LENGTH);
    for (const [query, variables] of [
      [SEARCHES, { t: text }],
      ['query($t: String) { searchProductsConnection(text: $t) { totalCount } }', { t: text }],
      ['query($t: String) { searchProducts(ipName: $t) { goodsCode } }', { t: text }],
    ] as const) {
      const { data, errors } = await h.query(query, variables);
      expect(data ?? null, query).toBeNull();
      expect(errors?.length, query).toBeGreaterThan(0);
      for (const error of errors ?? []) {
        expect(error.extensions?.code).toBe('BAD_USER_INPUT');
        expect(error.message).toContain(`folds to ${MAX_TEXT_LENGTH * LIGATURE_FOLDED}`);
      }
    }
    expect(callsByPath(h.mock)).toEqual({});
  });

  it('is searched when it folds to the limit or fewer characters, and refused one ligature past it', async () => {
    h = await startGateway();
    const fits = Math.floor(MAX_TEXT_LENGTH / LIGATURE_FOLDED);
    const admitted = await h.query(SEARCHES, { t: LIGATURE.repeat(fits) });
    expect(admitted.errors).toBeUndefined();
    expect(Object.values(admitted.data)).toEqual(Array.from({ length: ALIASES }, () => []));
    const refused = await h.query(SEARCHES, { t: LIGATURE.repeat(fits + 1) });
    expect(refused.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(refused.errors?.[0]?.message).toContain(`folds to ${(fits + 1) * LIGATURE_FOLDED}`);
    // Plain text of the limit's length folds to no more, and is searched.
    const plain = await h.query(SEARCHES, { t: 'a'.repeat(MAX_TEXT_LENGTH) });
    expect(plain.errors).toBeUndefined();
  });
});
