/**
 * Generated upstream answers, from valid to hostile, for each of the upstream's operations: the
 * envelope and the records of upstream-api.md with values of the wrong type, nulls, missing and
 * extra fields, huge strings and arrays, deep nesting, duplicate codes, absurd totals, error
 * codes, truncated or cut-off bodies, other statuses and content types. Each answer says whether
 * the gateway must refuse it (`mustReject`): then none of it may be served or stored.
 */
import fc from 'fast-check';
import { compactText } from './settings.js';
import type { ScriptedAnswer } from './upstream-stand-in.js';

/** The shape of an operation's `result`. */
export type ResultShape = 'cities' | 'plainSites' | 'sitesWithPoints' | 'products' | 'siteDetail' | 'productDetail';

/** A generated answer and what the gateway must make of it. */
export interface GeneratedAnswer {
  answer: ScriptedAnswer;
  /** Certainly malformed: no part of it may be served as data, cached or indexed. */
  mustReject: boolean;
}

const HUGE_TEXT = 'x'.repeat(100_000);

/** Bound on the JSON of a repeated list (the client's own cap, 10 MB, is tested elsewhere). */
const MAX_REPEATED_BYTES = 3_000_000;

/** A value of any type, from harmless to hostile. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constantFrom(3e9, -5, -1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, 1e308, -0, 0.5, Number.MAX_SAFE_INTEGER),
  fc.string({ maxLength: 12 }),
  fc.constantFrom('', ' ', '12abc', '1e309', 'NaN', 'Infinity', '-3', '3000000000', '\u0000', '<script>', '１２'),
  fc.constant(HUGE_TEXT),
  fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 4 })), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 }),
  fc.integer({ min: 1, max: 3000 }).map((depth) => nested(depth)),
);

/** Either a plausible value (most of the time) or a hostile one; `undefined` leaves the field out. */
function field<T>(plausible: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 4, arbitrary: plausible }, { weight: 2, arbitrary: hostileValue }, { weight: 1, arbitrary: fc.constant(undefined) });
}

const code = (prefix: string, known: string[]) =>
  fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }).map((s) => prefix + s) });
const text = fc.oneof(fc.string({ maxLength: 16 }), fc.constantFrom('上海K11 3F', '名侦探柯南 第7弹'));
const time = fc.oneof(fc.constantFrom('10:00:00', '22:00:00', '02:00:00', '00:00:00', '24:00:00', '25:61:99', '10:00'), fc.string({ maxLength: 8 }));
const decimal = fc.oneof(fc.double({ min: -200, max: 200, noNaN: true }).map(String), fc.double({ min: -90, max: 90, noNaN: true }));
const stock = fc.oneof(fc.integer({ min: 0, max: 50 }), fc.constantFrom(-5, -1, 3e9, 2 ** 31, '7', '-2', 1.5));
const price = fc.oneof(fc.integer({ min: 0, max: 100_000 }), fc.constantFrom(3e9, -100, '990', 2 ** 31));

/** Extra fields the description does not name. */
const extras = fc.dictionary(fc.constantFrom('extra', 'siteType', '__proto__', 'constructor', 'x'.repeat(300), 'toString'), hostileValue, { maxKeys: 2 });

function raw(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  return fc.tuple(fc.record(fields), extras).map(([known, extra]) => ({ ...extra, ...dropUndefined(known) }));
}

const city = raw({ id: field(fc.integer({ min: 1, max: 999_999 })), name: field(text), code: field(code('C', ['SH', 'BJ', 'GZ'])) });
const lane = raw({
  goodsCode: field(code('G', ['G00001', 'G00002'])), productName: field(text), productPic: field(fc.webUrl()),
  stock: field(stock), guidePrice: field(price),
});
const point = raw({
  code: field(code('P', ['P00000101', 'P00000102'])), name: field(text), gradeType: field(fc.constantFrom(1, 2)),
  imei: field(fc.string({ maxLength: 15 })), cargolanes: field(fc.array(lane, { maxLength: 6 })),
});
const siteFields = {
  code: field(code('S', ['S000001', 'S000002', 'S000003'])), name: field(text), state: field(fc.constantFrom(0, 1)),
  openTime: field(time), closeTime: field(time), address: field(text), addressExt: field(text),
  lng: field(decimal), lat: field(decimal), imgs: field(fc.array(fc.webUrl(), { maxLength: 2 })),
  siteType: field(fc.constantFrom('1', '2')), gradeType: field(fc.constantFrom(1, 2)),
};
const plainSite = raw(siteFields);
const siteWithPoints = raw({ ...siteFields, cityCode: field(code('C', ['SH', 'BJ'])), cityName: field(text), points: field(fc.array(point, { maxLength: 3 })) });
const product = raw({
  ipId: field(fc.integer({ min: 1, max: 999 })), ipName: field(text), productName: field(text),
  skuCode: field(fc.string({ maxLength: 10 })), goodsCode: field(code('G', ['G00001', 'G00002', 'G00003'])),
  costPrice: field(price), guidePrice: field(price), orderPic: field(fc.webUrl()),
});

const ITEM: Record<ResultShape, fc.Arbitrary<Record<string, unknown>>> = {
  cities: city, plainSites: plainSite, sitesWithPoints: siteWithPoints, products: product, siteDetail: siteWithPoints, productDetail: product,
};

/** A list's items: a few, one repeated (duplicate codes), thousands, or not a list of objects. */
function items(item: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 5, arbitrary: fc.array(item, { maxLength: 12 }) },
    { weight: 1, arbitrary: fc.tuple(item, fc.integer({ min: 2, max: 20 })).map(([one, n]) => repeat(one, n)) },
    { weight: 1, arbitrary: fc.tuple(item, fc.integer({ min: 1000, max: 20_000 })).map(([one, n]) => repeat(one, n)) },
    { weight: 1, arbitrary: fc.array(hostileValue, { maxLength: 4 }) },
  );
}

const total = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 200 }) },
  { weight: 2, arbitrary: fc.constantFrom(-1, 3e9, 1e308, 2 ** 53, 1e9, '80', 'lots', null, 0.5) },
);

/** The `result` of an operation: right-shaped most of the time. */
function result(shape: ResultShape): fc.Arbitrary<unknown> {
  const item = ITEM[shape];
  if (shape === 'siteDetail' || shape === 'productDetail') {
    return fc.oneof({ weight: 6, arbitrary: item }, { weight: 1, arbitrary: fc.constantFrom(null, {}, [], '', 0, 'S000001') }, { weight: 1, arbitrary: fc.constant(undefined) });
  }
  const page = fc.record({ items: field(items(item)), total: field(total), page: field(fc.integer()) }).map(dropUndefined);
  return fc.oneof({ weight: 6, arbitrary: page }, { weight: 1, arbitrary: hostileValue }, { weight: 1, arbitrary: fc.constant(undefined) });
}

const NOT_FOUND_MSGS = ['not found', '商品不存在', 'site does not exist'];
const envelopeCode = fc.oneof(
  { weight: 8, arbitrary: fc.constant(0) },
  { weight: 1, arbitrary: fc.constant('0') },
  { weight: 3, arbitrary: fc.constantFrom(500, 404, 401, 1, -1, 1e10, 'zero', null, 0.5, true, '', [0], undefined) },
);
const envelopeMsg = fc.oneof(
  fc.constantFrom('success', '', 'token is timeout. please retry.', 'system busy', HUGE_TEXT, ...NOT_FOUND_MSGS),
  fc.string({ maxLength: 20 }).filter((s) => !/not|exist|such|no\s*data|不存在|未找到/i.test(s)),
);

/** An upstream body for `shape` and whether it is certainly malformed. */
export function upstreamAnswer(shape: ResultShape, path: string): fc.Arbitrary<GeneratedAnswer> {
  const envelope = fc.record({
    code: envelopeCode, msg: field(envelopeMsg), message: field(fc.constant('success')), type: field(fc.constant('success')),
    timestamp: field(fc.integer({ min: 0, max: 2 ** 31 })), result: result(shape),
  }).map(dropUndefined);
  const top = fc.oneof({ weight: 12, arbitrary: envelope }, { weight: 1, arbitrary: hostileValue });
  const status = fc.oneof({ weight: 8, arbitrary: fc.constant(200) }, { weight: 2, arbitrary: fc.constantFrom(201, 301, 400, 401, 403, 404, 429, 500, 502, 503) });
  const contentType = fc.oneof(
    { weight: 6, arbitrary: fc.constant('application/json; charset=utf-8') },
    { weight: 2, arbitrary: fc.constantFrom('application/json', 'text/html', 'text/plain', 'application/xml', 'application/octet-stream', 'application/json; charset=utf-16', undefined) },
  );
  const damage = fc.oneof(
    { weight: 8, arbitrary: fc.constant({ kind: 'none' as const }) },
    { weight: 1, arbitrary: fc.double({ min: 0, max: 0.999, noNaN: true }).map((at) => ({ kind: 'truncate' as const, at })) },
    { weight: 1, arbitrary: fc.constantFrom('cut', 'bom', 'garbage', 'empty', 'html', 'deep', 'deepResult').map((kind) => ({ kind })) },
  );
  return fc.record({ top, status, contentType, damage }).map(({ top, status, contentType, damage }) => {
    const json = top === undefined ? '' : JSON.stringify(top);
    let body = json;
    if (damage.kind === 'truncate') body = json.slice(0, Math.floor(json.length * damage.at));
    if (damage.kind === 'bom') body = `\uFEFF${json}`;
    if (damage.kind === 'garbage') body = `${json}}]garbage`;
    if (damage.kind === 'empty') body = '';
    if (damage.kind === 'html') body = '<html><body>502 Bad Gateway</body></html>';
    if (damage.kind === 'deep') body = `{"code":0,"result":{"items":[${'['.repeat(100_000)}${']'.repeat(100_000)}],"total":1}}`;
    if (damage.kind === 'deepResult') body = `{"code":0,"result":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
    const answer: ScriptedAnswer = { status, contentType, body, cut: damage.kind === 'cut' };
    const readable = damage.kind === 'none' || damage.kind === 'bom';
    // 'deep' is a readable page of one broken item, which is left out as any broken item is: a
    // page without it, or an error, are both right, so it is not certainly malformed.
    const verdict = damage.kind === 'deep' ? false : !readable || mustReject(shape, path, status, top);
    // Printed in a failure report: the body with its long runs folded.
    const print = () => `{ status: ${status}, contentType: ${contentType}, cut: ${answer.cut}, mustReject: ${verdict}, body: ${compactText(body)} }`;
    return { answer, mustReject: verdict, [fc.toStringMethod]: print };
  });
}

// Private: whether a readable answer is certainly not data. An envelope with code 0 (or "0") is
// data at any HTTP status; a detail answer may say "not found" with an error envelope; an HTTP
// 404 from /api/site/list sends the gateway to /api/sites/list.
function mustReject(shape: ResultShape, path: string, status: number, top: unknown): boolean {
  if (path === '/api/site/list' && status === 404) return false;
  if (typeof top !== 'object' || top === null || Array.isArray(top)) return true;
  const { code, msg, result } = top as { code?: unknown; msg?: unknown; result?: unknown };
  const detail = shape === 'siteDetail' || shape === 'productDetail';
  if (code !== 0 && code !== '0') {
    const notFound = code === 404 || (typeof msg === 'string' && NOT_FOUND_MSGS.includes(msg));
    return !(detail && notFound && typeof code === 'number' && Number.isInteger(code));
  }
  if (detail) return !(result === null || result === undefined || (typeof result === 'object' && !Array.isArray(result)));
  return !(typeof result === 'object' && result !== null && Array.isArray((result as { items?: unknown }).items));
}

// Private: `n` copies of `one`, fewer when they would pass MAX_REPEATED_BYTES.
function repeat(one: unknown, n: number): unknown[] {
  const size = JSON.stringify(one).length + 1;
  return Array.from({ length: Math.max(1, Math.min(n, Math.floor(MAX_REPEATED_BYTES / size))) }, () => one);
}

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i += 1) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}

function dropUndefined<T extends Record<string, unknown>>(record: T): T {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as T;
}
