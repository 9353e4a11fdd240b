/**
 * Turns what the upstream sends into records of consistent types. The upstream declares numbers
 * it sends as strings (coordinates, sometimes prices and states), omits optional fields, and may
 * send a broken item; a broken field becomes `null`, and only an item with no usable identity
 * (no code) is dropped, so one bad item never loses its page. Texts that many records repeat
 * (products' names, codes and pictures, points' names, sites' hours, types and cities) are interned (intern.ts).
 */
import { boundedMap, createInterner, TEXTS_KEPT } from './intern.js';
import type {
  CityRecord,
  LaneRecord,
  PointRecord,
  ProductRecord,
  SiteRecord,
  UpstreamPage,
} from './records.js';

type Raw = Record<string, unknown>;

/**
 * GraphQL's `Int` range, which every whole number must fit (a stock must also be 0 or more). A
 * value outside it is not clamped but becomes `null`, named in the record's `invalid`, so the
 * field answers `UPSTREAM_DATA_INVALID` (graph/resolvers/upstream-data.ts) and the rest serves.
 */
export const INT_RANGE = { min: -2_147_483_648, max: 2_147_483_647 } as const;
const STOCK_RANGE = { min: 0, max: INT_RANGE.max } as const;

// Private: reads whole numbers of one record, noting the fields whose value is out of range.
function intReader(raw: Raw): { read: (field: string, range?: { min: number; max: number }) => number | null; invalid: string[] } {
  const invalid: string[] = [];
  const read = (field: string, range: { min: number; max: number } = INT_RANGE): number | null => {
    const number = toInt(raw[field]);
    if (number === null || (number >= range.min && number <= range.max)) return number;
    invalid.push(field);
    return null;
  };
  return { read, invalid };
}

// Private: `record` with its `invalid` fields, when there are any (most records have none).
function withInvalid<T extends object>(record: T, invalid: string[]): T & { invalid?: string[] } {
  return invalid.length === 0 ? record : { ...record, invalid };
}

/** Called for every item that had to be dropped, with a short reason. */
export type DefectReporter = (what: string) => void;

export function toInt(value: unknown): number | null {
  const number = toFloat(value);
  return number === null ? null : Math.trunc(number);
}

export function toFloat(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string' || value.trim() === '') return null;
  const number = Number(value.trim());
  return Number.isFinite(number) ? number : null;
}

export function toText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/** Like `toText`, but an empty string is `null` too (codes, optional texts). */
function toNonEmptyText(value: unknown): string | null {
  const text = toText(value)?.trim();
  return text ? text : null;
}

const intern = createInterner();

/** `toText`, interned: for texts many records repeat. */
function sharedText(value: unknown): string | null {
  const text = toText(value);
  return text === null ? null : intern(text);
}

/** `toNonEmptyText`, interned. */
function sharedNonEmptyText(value: unknown): string | null {
  const text = toNonEmptyText(value);
  return text === null ? null : intern(text);
}

function isRaw(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toTextList(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.map(toNonEmptyText).filter((text): text is string => text !== null);
}

/** Normalises each element of `value` (not an array: none), dropping those `one` rejects. */
function each<T>(value: unknown, one: (raw: Raw) => T | null, what: string, report: DefectReporter): T[] {
  if (!Array.isArray(value)) return [];
  const out: T[] = [];
  for (const item of value) {
    const record = isRaw(item) ? one(item) : null;
    if (record === null) report(`${what} without a usable code`);
    else out.push(record);
  }
  return out;
}

export function normaliseCity(raw: Raw): CityRecord | null {
  const id = intReader(raw).read('id');
  const code = toNonEmptyText(raw.code);
  if (id === null || code === null) return null;
  return { id, code, name: toText(raw.name) ?? code };
}

export function normaliseProduct(raw: Raw): ProductRecord | null {
  const goodsCode = toNonEmptyText(raw.goodsCode);
  if (goodsCode === null) return null;
  const { read, invalid } = intReader(raw);
  return withInvalid({
    goodsCode: intern(goodsCode),
    skuCode: sharedNonEmptyText(raw.skuCode),
    productName: sharedText(raw.productName),
    ipId: read('ipId'),
    ipName: sharedText(raw.ipName),
    costPrice: read('costPrice'),
    guidePrice: read('guidePrice'),
    orderPic: sharedNonEmptyText(raw.orderPic),
  }, invalid);
}

type LaneProduct = Pick<LaneRecord, 'goodsCode' | 'productName' | 'productPic'>;

// Private: the product texts of the last lane seen with each goods code, so that a lane naming its
// product alike shares them through one lookup instead of one per text.
const laneProducts = boundedMap<LaneProduct>(TEXTS_KEPT);

// Private: a lane's product texts, interned.
function laneProduct(raw: Raw): LaneProduct {
  const goodsCode = toNonEmptyText(raw.goodsCode);
  const productName = toText(raw.productName);
  const productPic = toNonEmptyText(raw.productPic);
  const kept = goodsCode === null ? undefined : laneProducts.get(goodsCode);
  if (kept !== undefined && kept.productName === productName && kept.productPic === productPic) return kept;
  const made = { goodsCode: goodsCode && intern(goodsCode), productName: productName && intern(productName), productPic: productPic && intern(productPic) };
  if (made.goodsCode !== null) laneProducts.set(made.goodsCode, made);
  return made;
}

function normaliseLane(raw: Raw): LaneRecord {
  const { read, invalid } = intReader(raw);
  const { goodsCode, productName, productPic } = laneProduct(raw);
  return withInvalid({ goodsCode, productName, productPic, stock: read('stock', STOCK_RANGE), guidePrice: read('guidePrice') }, invalid);
}

function normalisePoint(raw: Raw, report: DefectReporter): PointRecord | null {
  const code = toNonEmptyText(raw.code);
  if (code === null) return null;
  const { read, invalid } = intReader(raw);
  return withInvalid({
    code,
    name: sharedText(raw.name) ?? code,
    gradeType: read('gradeType'),
    imei: toNonEmptyText(raw.imei),
    cargoLanes: each(raw.cargolanes, normaliseLane, 'cargo lane', report),
  }, invalid);
}

/** A site from any of the four site operations; `points` is `null` when the source has none. */
export function normaliseSite(raw: Raw, report: DefectReporter): SiteRecord | null {
  const code = toNonEmptyText(raw.code);
  if (code === null) return null;
  const { read, invalid } = intReader(raw);
  return withInvalid({
    code,
    name: toText(raw.name) ?? code,
    state: toInt(raw.state) === 1 ? 1 : 0,
    openTime: sharedNonEmptyText(raw.openTime),
    closeTime: sharedNonEmptyText(raw.closeTime),
    address: toNonEmptyText(raw.address),
    addressExt: toNonEmptyText(raw.addressExt),
    lat: toFloat(raw.lat),
    lng: toFloat(raw.lng),
    images: toTextList(raw.imgs),
    siteType: sharedNonEmptyText(raw.siteType),
    gradeType: read('gradeType'),
    cityCode: sharedNonEmptyText(raw.cityCode),
    cityName: sharedNonEmptyText(raw.cityName),
    points: Array.isArray(raw.points) ? each(raw.points, (p) => normalisePoint(p, report), 'point', report) : null,
  }, invalid);
}

/** How a field of a declared record is read: a code (required), a text, a whole or decimal number, a list of texts. */
export type FieldKind = 'code' | 'text' | 'int' | 'float' | 'texts';

type ValueOf<K extends FieldKind> = K extends 'code' ? string : K extends 'text' ? string | null : K extends 'texts' ? string[] : number | null;

/** The record `recordReader(fields)` reads. */
export type DeclaredRecord<F extends Record<string, FieldKind>> = { [N in keyof F]: ValueOf<F[N]> } & { invalid?: string[] };

/**
 * A reader of records declared by their fields, named as the upstream names them: for a record
 * with no quirks of its own (the others above have theirs). One without a usable code is dropped.
 */
export function recordReader<F extends Record<string, FieldKind>>(fields: F): (raw: Raw) => DeclaredRecord<F> | null {
  const readers: Record<FieldKind, (value: unknown) => unknown> = { code: toNonEmptyText, text: toText, float: toFloat, texts: toTextList, int: toInt };
  return (raw) => {
    const { read, invalid } = intReader(raw);
    const record: Record<string, unknown> = {};
    for (const [name, kind] of Object.entries(fields)) {
      record[name] = kind === 'int' ? read(name) : readers[kind](raw[name]);
      if (kind === 'code' && record[name] === null) return null;
    }
    return withInvalid(record, invalid) as DeclaredRecord<F>;
  };
}

/** A list's `result`, `{items, total}`, or `null` when malformed; a broken `total` falls back to what is known. */
export function normalisePage<T>(
  result: unknown,
  one: (raw: Raw, report: DefectReporter) => T | null,
  what: string,
  offset: number,
  report: DefectReporter,
): UpstreamPage<T> | null {
  if (!isRaw(result) || !Array.isArray(result.items)) return null;
  const items = result.items.map((item: unknown) => {
    const record = isRaw(item) ? one(item, report) : null;
    if (record === null) report(`${what} item without a usable code`);
    return record;
  });
  // A total beyond Int (which the schema's `total` is) is as broken as a missing one.
  const total = toInt(result.total);
  const usable = total !== null && total >= 0 && total <= INT_RANGE.max;
  return { items, total: usable ? total : offset + result.items.length };
}

/** Whether a detail operation's `result` means "no such record" (null, absent or `{}`). */
export function isEmptyResult(result: unknown): boolean {
  return result === null || result === undefined || (isRaw(result) && Object.keys(result).length === 0);
}

export { isRaw };
