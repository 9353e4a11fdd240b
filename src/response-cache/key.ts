/**
 * The response cache keys on exactly the operation that executes, never the request's text: a
 * SHA-256 of the printed document, which operation runs, its coerced variables with sorted keys,
 * and `Accept`. Requests two readers could read differently are never cached.
 */
import { createHash } from 'node:crypto';
import { print, type DocumentNode, type ExecutionArgs } from 'graphql';
import { isRunning, runningOperation } from '../graph/running-operation.js';

const GRAPHQL_PARAMETERS = ['query', 'variables', 'operationName', 'extensions'];

/** Whether a query string gives a GraphQL parameter twice: two readers could take different ones. */
export function repeatsParameter(params: URLSearchParams): boolean {
  return GRAPHQL_PARAMETERS.some((name) => params.getAll(name).length > 1);
}

/** The cache key of an execution, or `undefined` when it cannot run as given or is not `worthKeying`. */
export function createKeyMaker(worthKeying: (document: DocumentNode) => boolean = () => true): (args: ExecutionArgs, accept: string) => string | undefined {
  // One document object per query text (yoga's parser cache): each is printed and hashed once.
  const documentHashes = new WeakMap<DocumentNode, string>();
  // Kept on the arguments, so a key made before execution is found made when they execute.
  const KEY = Symbol('response-cache key');
  return (args, accept) => {
    const carrier = args as ExecutionArgs & { [KEY]?: string | null };
    const kept = carrier[KEY];
    if (kept !== undefined) return kept ?? undefined;
    const key = worthKeying(args.document) ? keyOf(args, accept) : undefined;
    carrier[KEY] = key ?? null;
    return key;
  };

  function keyOf(args: ExecutionArgs, accept: string): string | undefined {
    const running = runningOperation(args);
    if (!isRunning(running)) return undefined;
    const { document } = args;
    let documentHash = documentHashes.get(document);
    if (documentHash === undefined) {
      documentHash = sha256(print(document));
      documentHashes.set(document, documentHash);
    }
    const operationIndex = document.definitions.indexOf(running.operation);
    return sha256(`${accept}\n${documentHash}\n${operationIndex}\n${canonicalJson(running.variables)}`);
  }
}

/** JSON with every object's keys sorted. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
    const sorted: Record<string, unknown> = {};
    for (const name of Object.keys(item).sort()) sorted[name] = (item as Record<string, unknown>)[name];
    return sorted;
  });
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}
