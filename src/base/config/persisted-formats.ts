/**
 * The three shapes of a persisted documents list (codegen, Apollo manifest, Relay) and how `auto`
 * tells them apart: all-sha256 keys are codegen, none Relay; a mix is refused, since reading it as
 * Relay would skip the sha256 check.
 */

/** The values `PERSISTED_OPERATIONS_FORMAT` takes. */
export const PERSISTED_FORMATS = ['auto', 'codegen', 'apollo', 'relay'] as const;
export type PersistedFormatSetting = (typeof PERSISTED_FORMATS)[number];
export type PersistedFormat = Exclude<PersistedFormatSetting, 'auto'>;

/** What a file holds: its format, and its entries as id and document (unchecked: `unknown` values). */
export interface PersistedEntries {
  format: PersistedFormat;
  entries: Array<[id: string, document: unknown]>;
}

const APOLLO_FORMAT = 'apollo-persisted-query-manifest';
const SHA256_HEX = /^[0-9a-f]{64}$/i;
const IDS_PER_SLICE = 4096;

/** A parsed file's entries in `setting`'s format, or why it is in none; each `yield` ends a slice of work. */
export function* entriesOf(parsed: unknown, setting: PersistedFormatSetting): Generator<void, PersistedEntries | string> {
  const format = setting === 'auto' ? yield* detect(parsed) : setting;
  if (format === 'mixed') return 'has ids of 64 hex digits (codegen\'s sha256s) and other ids: set PERSISTED_OPERATIONS_FORMAT to codegen or relay';
  if (format === undefined) return `is in none of the formats: expected ${Object.entries(SHAPES).map(([name, shape]) => `${shape} (${name})`).join('; ')}`;
  if (format === 'apollo') return yield* apolloEntries(parsed);
  if (!isObject(parsed)) return `is not a ${format} map: expected ${SHAPES[format]}`;
  const entries: Array<[string, unknown]> = [];
  for (const id of Object.keys(parsed)) {
    entries.push([id, parsed[id]]);
    if (entries.length % IDS_PER_SLICE === 0) yield;
  }
  return { format, entries };
}

const SHAPES: Record<PersistedFormat, string> = {
  codegen: 'a JSON object mapping each sha256 hex to its document',
  apollo: `{"format":"${APOLLO_FORMAT}","version":1,"operations":[{"id","name","type","body"}]}`,
  relay: 'a JSON object mapping each id to its document',
};

// Private: the format a parsed file is in, `mixed` for a map of both kinds of id, or undefined.
function* detect(parsed: unknown): Generator<void, PersistedFormat | 'mixed' | undefined> {
  if (!isObject(parsed)) return undefined;
  if (parsed.format === APOLLO_FORMAT || Array.isArray(parsed.operations)) return 'apollo';
  const ids = Object.keys(parsed);
  let hex = 0;
  for (let index = 0; index < ids.length; index += 1) {
    if (SHA256_HEX.test(ids[index]!)) hex += 1;
    if (index % IDS_PER_SLICE === IDS_PER_SLICE - 1) yield;
  }
  return hex === 0 ? 'relay' : hex === ids.length ? 'codegen' : 'mixed';
}

// Private: an Apollo manifest's operations; the manifest's own fields are checked, each body later.
function* apolloEntries(parsed: unknown): Generator<void, PersistedEntries | string> {
  if (!isObject(parsed) || parsed.format !== APOLLO_FORMAT || parsed.version !== 1 || !Array.isArray(parsed.operations)) {
    return `is not an Apollo manifest: expected ${SHAPES.apollo}`;
  }
  const entries: Array<[string, unknown]> = [];
  for (const operation of parsed.operations as unknown[]) {
    const valid = isObject(operation) && typeof operation.id === 'string' && operation.id !== '';
    entries.push(valid ? [operation.id as string, operation.body] : [`operations[${entries.length}]`, undefined]);
    if (entries.length % IDS_PER_SLICE === 0) yield;
  }
  return { format: 'apollo', entries };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
