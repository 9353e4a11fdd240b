/**
 * The allow-list of persisted documents (`PERSISTED_OPERATIONS_FILE`), in any of the formats of
 * persisted-formats.ts: each id with its document, every document parsed at reading, so that a
 * bad file is reported (at start-up with the other settings; on a reload, as the reason the old
 * list is kept) instead of failing requests one by one.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { parse } from 'graphql';
import { entriesOf, type PersistedFormat, type PersistedFormatSetting } from './persisted-formats.js';

export interface PersistedOperations {
  /** The file the operations were read from (for logs, and to read again on a reload). */
  file: string;
  /** `PERSISTED_OPERATIONS_FORMAT` as set, which a reload reads the file by again. */
  setting: PersistedFormatSetting;
  /** The format the file was read in. */
  format: PersistedFormat;
  /** Document by id, the id as `normalId` makes it. */
  documents: ReadonlyMap<string, string>;
}

/** How many bad entries a problem names before it only counts the rest. */
const NAMED_ENTRIES = 3;
const PREFIXED_SHA256 = /^sha256:([0-9a-f]{64})$/i;
const HEX = /^[0-9a-f]+$/i;

/** The sha256 of `document` as clients compute it: hex of the UTF-8 text, exactly as sent. */
export function sha256Hex(document: string): string {
  return createHash('sha256').update(document, 'utf8').digest('hex');
}

/**
 * An id as the list keys it: `sha256:<hex>` (the GraphQL-over-HTTP persisted documents form) is
 * its hex, and hex is lower-case, so that a client's spelling of a hash never misses; any other
 * id (Relay's may be any string) is kept as it is.
 */
export function normalId(id: string): string {
  const bare = PREFIXED_SHA256.exec(id)?.[1] ?? id;
  return HEX.test(bare) ? bare.toLowerCase() : bare;
}

/** Reads and checks the list at start-up; records problems instead of throwing. */
export function readPersistedOperationsFile(name: string, file: string, setting: PersistedFormatSetting, problems: string[]): PersistedOperations | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    problems.push(`${name} must name a readable JSON file, but reading ${JSON.stringify(file)} failed: ${reason(error)}`);
    return undefined;
  }
  return persistedOperationsOf(name, { file, setting }, text, problems);
}

/** Reads `list`'s file again, the same way: the new list, or the problems that keep the old one. */
export async function rereadPersistedOperations(name: string, list: Pick<PersistedOperations, 'file' | 'setting'>): Promise<PersistedOperations | string[]> {
  const problems: string[] = [];
  let text: string;
  try {
    text = await readFile(list.file, 'utf8');
  } catch (error) {
    return [`${name} must name a readable JSON file, but reading ${JSON.stringify(list.file)} failed: ${reason(error)}`];
  }
  return persistedOperationsOf(name, list, text, problems) ?? problems;
}

// Private: the list a file's text holds, or undefined with its problems recorded.
function persistedOperationsOf(name: string, { file, setting }: Pick<PersistedOperations, 'file' | 'setting'>, text: string, problems: string[]): PersistedOperations | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    problems.push(`${name} must name a JSON file, but ${JSON.stringify(file)} is not JSON: ${reason(error)}`);
    return undefined;
  }
  const read = entriesOf(parsed, setting);
  if (typeof read === 'string') {
    problems.push(`${name} ${JSON.stringify(file)} ${read}`);
    return undefined;
  }
  const { format, entries } = read;
  const bad = entries.flatMap(([id, document]) => {
    const problem = entryProblem(format, id, document);
    return problem === undefined ? [] : [`${JSON.stringify(id.slice(0, 64))} ${problem}`];
  });
  if (entries.length === 0) problems.push(`${name} lists no operations: ${JSON.stringify(file)}`);
  if (bad.length > 0) {
    const named = bad.slice(0, NAMED_ENTRIES).join('; ');
    const more = bad.length > NAMED_ENTRIES ? ` (and ${bad.length - NAMED_ENTRIES} more)` : '';
    problems.push(`${name} has ${bad.length} bad ${bad.length === 1 ? 'entry' : 'entries'} in ${JSON.stringify(file)} (read as ${format}): ${named}${more}`);
  }
  if (entries.length === 0 || bad.length > 0) return undefined;
  return { file, setting, format, documents: new Map(entries.map(([id, document]) => [normalId(id), document as string])) };
}

// Private: why one entry is unusable, or undefined. A codegen key that is not its document's
// sha256 would never match what a client sends, so it is refused here rather than ignored at run time.
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
