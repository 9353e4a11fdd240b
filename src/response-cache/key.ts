/**
 * What the response cache keys on: exactly the operation that executes, never the request's
 * own text. Two requests share a key if and only if they run the same operation with the same
 * variables and ask for the same media type:
 *
 * - the document as yoga parsed it, normalised by graphql-js (`print`: comments and layout go,
 *   string literals stay as they are), and which of its operations runs;
 * - the variables as execution sees them: coerced by graphql-js against the operation's
 *   definitions (defaults applied, unknown names dropped; running-operation.ts, which the checks
 *   after this plugin share), then written with sorted keys;
 * - the client's `Accept` header, which chooses the answer's media type.
 *
 * The key is a SHA-256 of those, so its size is fixed whatever the query and variables weigh.
 *
 * Some requests are never looked up nor stored (`ambiguousRequest`): those whose parameters two
 * readers could read differently (a URL parameter given twice), bodies other than JSON (a form
 * or text body is also what a cross-site page can send without a preflight), batches, and
 * methods other than GET and POST.
 */
import { createHash } from 'node:crypto';
import { print, type DocumentNode, type ExecutionArgs } from 'graphql';
import { isRunning, runningOperation } from '../graph/running-operation.js';

/** The URL parameters that say what runs (GraphQL over HTTP). */
const GRAPHQL_PARAMETERS = ['query', 'variables', 'operationName', 'extensions'];

/** Whether a GraphQL request's parameters are ambiguous or of a kind never cached. */
export function ambiguousRequest(request: Request, url: URL): boolean {
  if (request.method === 'GET') return GRAPHQL_PARAMETERS.some((name) => url.searchParams.getAll(name).length > 1);
  if (request.method !== 'POST') return true;
  const mediaType = request.headers.get('content-type')?.split(';', 1)[0]?.trim().toLowerCase();
  return mediaType !== 'application/json';
}

/**
 * The cache key of an execution, or `undefined` when it cannot run as given (no such operation,
 * variables that do not coerce): execution answers those with errors, which are never stored.
 * Also `undefined` for a document not `worthKeying` (unstorable.ts).
 */
export function createKeyMaker(worthKeying: (document: DocumentNode) => boolean = () => true): (args: ExecutionArgs, accept: string) => string | undefined {
  // yoga's parser cache hands out one document object per query text, so each text is printed
  // and hashed once; a document leaves this map when it leaves yoga's cache.
  const documentHashes = new WeakMap<DocumentNode, string>();
  // The lean path looks its key up before execution, with the arguments it then executes: the
  // plugin's own lookup finds it made (the accept header is the same request's). Kept on the
  // arguments, not in a WeakMap (running-operation.ts says why).
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

/** JSON with every object's keys sorted, so that key order never matters. */
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
