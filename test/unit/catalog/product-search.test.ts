import { describe, expect, it } from 'vitest';
import { buildProductsCatalog, searchProducts } from '../../../src/catalog/catalog.js';
import type { ProductRecord } from '../../../src/upstream/records.js';

function product(goodsCode: string, productName: string | null, ipName: string | null): ProductRecord {
  return { goodsCode, productName, ipName, skuCode: null, ipId: null, costPrice: null, guidePrice: null, orderPic: null };
}

const PRODUCTS = [
  product('G1', 'Pokémon 第1弹 闪卡卡包', 'Pokémon'),
  product('G2', 'ＵＬＴＲＡＭＡＮ Card Pack', 'Ultraman'),
  product('G3', 'Ultraman 盲盒', 'Ultraman'),
  product('G4', null, null),
  product('G5', 'pokémon 卡', 'Pokémon'),
];

describe('product search over the name index', () => {
  const catalog = buildProductsCatalog(PRODUCTS);
  const codes = (found: ProductRecord[]) => found.map((p) => p.goodsCode);

  it('finds names holding the text in any case and width, in catalog order', () => {
    expect(codes(searchProducts(catalog, 'ultraman', undefined, 10))).toEqual(['G2', 'G3']);
    expect(codes(searchProducts(catalog, '卡', undefined, 10))).toEqual(['G1', 'G5']);
    expect(codes(searchProducts(catalog, '卡包', undefined, 10))).toEqual(['G1']);
    expect(codes(searchProducts(catalog, 'card pack', undefined, 10))).toEqual(['G2']);
    expect(codes(searchProducts(catalog, 'nothing like it', undefined, 10))).toEqual([]);
  });

  it('finds names without regard to accents or full-width forms, in the text, the name and the IP name alike', () => {
    expect(codes(searchProducts(catalog, 'Pokemon', undefined, 10))).toEqual(['G1', 'G5']);
    expect(codes(searchProducts(catalog, 'ＰＯＫＥＭＯＮ', undefined, 10))).toEqual(['G1', 'G5']);
    expect(codes(searchProducts(catalog, 'POKÉMON 第1', undefined, 10))).toEqual(['G1']);
    expect(codes(searchProducts(catalog, 'ｕｌｔｒａ', undefined, 10))).toEqual(['G2', 'G3']);
    expect(codes(searchProducts(catalog, undefined, 'pokemon', 10))).toEqual(['G1', 'G5']);
    expect(codes(searchProducts(catalog, 'card', 'ＵＬＴＲＡＭＡＮ', 10))).toEqual(['G2']);
  });

  it('keeps the kana voicing marks: a voiced kana does not find its unvoiced one', () => {
    const kana = buildProductsCatalog([product('K1', 'バッジ', null), product('K2', 'ハッジ', null), product('K3', 'ﾊﾞｯｼﾞ', null)]);
    expect(codes(searchProducts(kana, 'バ', undefined, 10))).toEqual(['K1', 'K3']);
    expect(codes(searchProducts(kana, 'ハ', undefined, 10))).toEqual(['K2']);
  });

  it('takes a whole IP name, alone or with text, and stops at first', () => {
    expect(codes(searchProducts(catalog, undefined, 'POKÉMON', 10))).toEqual(['G1', 'G5']);
    expect(codes(searchProducts(catalog, undefined, 'poke', 10))).toEqual([]);
    expect(codes(searchProducts(catalog, '盲盒', 'ultraman', 10))).toEqual(['G3']);
    expect(codes(searchProducts(catalog, 'a', undefined, 1))).toEqual(['G2']);
    expect(codes(searchProducts(catalog, undefined, undefined, 2))).toEqual(['G1', 'G2']);
  });
});
