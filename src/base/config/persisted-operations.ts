/**
 * The allow-list of persisted documents, every document parsed at reading, so a bad file is
 * reported once instead of failing requests one by one. Size is bounded because the JSON parse
 * blocks the event loop; a reload then checks documents in slices between turns.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { parse } from 'graphql';
import { entriesOf, type PersistedFormat, type PersistedFormatSetting } from './persisted-formats.js';

export interface PersistedOperations {
  /** The file the operations were read from (for logs, and to read again on a reload). */
  file: string;
  /** `PERSISTED_OPERATIONS_FORMAT` as set, which a reload reads the file by again. */
  setting: PersistedFormatSetting;
  /** `PERSISTED_OPERATIONS_MAX_BYTES`: the largest file read, at start-up and on a reload. */
  maxBytes: number;
  /** The format the file was read in. */
  format: PersistedFormat;
  /** Document by id, the id as `normalId` makes it. */
  documents: ReadonlyMap<string, string>;
}

/** Where a list is read from, and how: what a reload reads again. */
export type PersistedSource = Pick<PersistedOperations, 'file' | 'setting' | 'maxBytes'>;

/** `PERSISTED_OPERATIONS_MAX_BYTES`' default, 4 MiB. */
export const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;
/** Characters of ids and documents checked in one slice of a reload, between two turns of the event loop. */
export const SLICE_BYTES = 64 * 1024;
/** Characters an entry counts for in a slice besides its id and document: the work of any entry. */
const ENTRY_BYTES = 64;

/** How many bad entries a problem names before it only counts the rest. */
const NAMED_ENTRIES = 3;
const PREFIXED_SHA256 = /^sha256:([0-9a-f]{64})$/i;
const HEX = /^[0-9a-f]+$/i;

/** The sha256 of `document` as clients compute it: hex of the UTF-8 text, exactly as sent. */
export function sha256Hex(document: string): string {
  return createHash('sha256').update(document, 'utf8').digest('hex');
}

/** An id as the list keys it: `sha256:<hex>` and hex in lower case, so a hash's spelling never misses. */
export function normalId(id: string): string {
  const bare = PREFIXED_SHA256.exec(id)?.[1] ?? id;
  return HEX.test(bare) ? bare.toLowerCase() : bare;
}

/** Reads and checks the list at start-up, at once; records problems instead of throwing. */
export function readPersistedOperationsFile(
  name: string, file: string, setting: PersistedFormatSetting, problems: string[], maxBytes = DEFAULT_MAX_BYTES,
): PersistedOperations | undefined {
  const source = { file, setting, maxBytes };
  let text: string;
  try {
    const size = statSync(file).size;
    if (size > maxBytes) return void problems.push(tooLarge(name, source, size));
    text = readFileSync(file, 'utf8');
  } catch (error) {
    problems.push(unreadable(name, file, error));
    return undefined;
  }
  const steps = listOf(name, source, text, problems);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Reads `source`'s file again in slices with a `turn` between: the new list, or why the old one stays. */
export async function rereadPersistedOperations(name: string, source: PersistedSource, turn: () => Promise<void> = nextTurn): Promise<PersistedOperations | string[]> {
  const problems: string[] = [];
  let text: string;
  try {
    const handle = await open(source.file);
    try {
      const { size } = await handle.stat();
      if (size > source.maxBytes) return [tooLarge(name, source, size)];
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    return [unreadable(name, source.file, error)];
  }
  const steps = listOf(name, source, text, problems);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value ?? problems;
    await turn();
  }
}

// Private: the list a file's text holds, or undefined with its problems; each `yield` ends a slice.
function* listOf(name: string, { file, setting, maxBytes }: PersistedSource, text: string, problems: string[]): Generator<void, PersistedOperations | undefined> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    problems.push(`${name} must name a JSON file, but ${JSON.stringify(file)} is not JSON: ${reason(error)}`);
    return undefined;
  }
  yield;
  const read = yield* entriesOf(parsed, setting);
  if (typeof read === 'string') {
    problems.push(`${name} ${JSON.stringify(file)} ${read}`);
    return undefined;
  }
  const { format, entries } = read;
  const bad: string[] = [];
  const documents = new Map<string, string>();
  let slice = 0;
  for (const [id, document] of entries) {
    const problem = entryProblem(format, id, document);
    if (problem !== undefined) bad.push(`${JSON.stringify(id.slice(0, 64))} ${problem}`);
    else documents.set(normalId(id), document as string);
    slice += id.length + (typeof document === 'string' ? document.length : 0) + ENTRY_BYTES;
    if (slice >= SLICE_BYTES) {
      slice = 0;
      yield;
    }
  }
  if (entries.length === 0) problems.push(`${name} lists no operations: ${JSON.stringify(file)}`);
  if (bad.length > 0) {
    const named = bad.slice(0, NAMED_ENTRIES).join('; ');
    const more = bad.length > NAMED_ENTRIES ? ` (and ${bad.length - NAMED_ENTRIES} more)` : '';
    problems.push(`${name} has ${bad.length} bad ${bad.length === 1 ? 'entry' : 'entries'} in ${JSON.stringify(file)} (read as ${format}): ${named}${more}`);
  }
  if (entries.length === 0 || bad.length > 0) return undefined;
  return { file, setting, maxBytes, format, documents };
}

// Private: the problem of a file over the bound, which is not read.
function tooLarge(name: string, { file, maxBytes }: PersistedSource, size: number): string {
  return `${name} ${JSON.stringify(file)} is ${size} bytes, more than PERSISTED_OPERATIONS_MAX_BYTES (${maxBytes}) allows: raise it, or list fewer operations`;
}

function unreadable(name: string, file: string, error: unknown): string {
  return `${name} must name a readable JSON file, but reading ${JSON.stringify(file)} failed: ${reason(error)}`;
}

// Private: a turn of the event loop, for requests (and their I/O) to be served between two slices.
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

// Private: why one entry is unusable (a codegen key not its document's sha256 would never match), or undefined.
function entryProblem(format: PersistedFormat, id: string, document: unknown): string | undefined {
  if (typeof document !== 'string') return 'is not a document (a string)';
  try {
    parse(document);
  } catch (error) {
    return `is not a GraphQL document: ${reason(error)}`;
  }
  if (format === 'codegen' && normalId(id) !== sha256Hex(document)) return `is not the sha256 of its document (expected ${sha256Hex(document)})`;
  return undefined;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0]! : String(error);
}
