/**
 * The allow-list of persisted operations (`PERSISTED_OPERATIONS_FILE`): a JSON object mapping
 * the sha256 (lower-case hex) of each document to the document, which is what GraphQL Code
 * Generator's client preset writes as `persisted-documents.json`, and what Apollo Client's and
 * urql's persisted-query links send as `extensions.persistedQuery.sha256Hash`. Read once, at
 * start-up, by `loadConfig`; every problem in the file is reported with the other settings'.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'graphql';

export interface PersistedOperations {
  /** The file the operations were read from (for logs). */
  file: string;
  /** Document by the sha256 hex of its text. */
  documents: ReadonlyMap<string, string>;
}

/** How many bad entries a problem names before it only counts the rest. */
const NAMED_ENTRIES = 3;

/** The sha256 of `document` as clients compute it: hex of the UTF-8 text, exactly as sent. */
export function sha256Hex(document: string): string {
  return createHash('sha256').update(document, 'utf8').digest('hex');
}

/** Reads and checks the allow-list file; records problems instead of throwing. */
export function readPersistedOperationsFile(name: string, file: string, problems: string[]): PersistedOperations | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    problems.push(`${name} must name a readable JSON file, but reading ${JSON.stringify(file)} failed: ${reason(error)}`);
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push(`${name} must hold a JSON object mapping sha256 hashes to documents: ${JSON.stringify(file)}`);
    return undefined;
  }
  const entries = Object.entries(parsed as Record<string, unknown>);
  const bad = entries.flatMap(([hash, document]) => {
    const problem = entryProblem(hash, document);
    return problem === undefined ? [] : [`${JSON.stringify(hash.slice(0, 64))} ${problem}`];
  });
  if (entries.length === 0) problems.push(`${name} lists no operations: ${JSON.stringify(file)}`);
  if (bad.length > 0) {
    const named = bad.slice(0, NAMED_ENTRIES).join('; ');
    const more = bad.length > NAMED_ENTRIES ? ` (and ${bad.length - NAMED_ENTRIES} more)` : '';
    problems.push(`${name} has ${bad.length} bad ${bad.length === 1 ? 'entry' : 'entries'} in ${JSON.stringify(file)}: ${named}${more}`);
  }
  if (entries.length === 0 || bad.length > 0) return undefined;
  return { file, documents: new Map(entries as [string, string][]) };
}

// Private: why one entry is unusable, or undefined. A key that is not its document's sha256
// would never match what a client sends, so it is refused here rather than ignored at run time.
function entryProblem(hash: string, document: unknown): string | undefined {
  if (typeof document !== 'string') return 'is not a document (a string)';
  try {
    parse(document);
  } catch (error) {
    return `is not a GraphQL document: ${reason(error)}`;
  }
  if (hash !== sha256Hex(document)) return `is not the sha256 of its document (expected ${sha256Hex(document)})`;
  return undefined;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0]! : String(error);
}
