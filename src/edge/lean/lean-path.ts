/**
 * The lean path: the common GraphQL request (a POST of a JSON body holding one query) served
 * straight from Node's request, without the Fetch API `Request` and `Response` objects, the
 * header objects and the promise chain of yoga's HTTP layer, which cost a response-cache hit
 * three to four times what writing its bytes costs (`node --cpu-prof`: README "Performance").
 *
 * It changes how a request is served, never what it answers:
 *
 * - The same admission (edge/admission/admission.ts), first: the path, the media types, the API
 *   key, the rate limit (in the same buckets, after the key, once: a request handed to yoga is
 *   not counted again; both decided before the body was read, edge/admission/before-body.ts,
 *   and read here) and the parameter limits, before anything else is read. What the
 *   admission refuses is handed to yoga, whose plugins ask the same admission and answer the
 *   refusal. CSRF never refuses a JSON body, the only kind served here.
 * - The same GraphQL: yoga's own enveloped `parse` and `validate` (its caches, the query limits),
 *   the first time a text comes; then the same context, and the functions yoga's execution hooks
 *   call, run straight (graph/execution/run.ts): the argument checks, the item limit, the
 *   upstream budget, the executor, the request scope's notes, error masking. The response cache
 *   is asked here, by the same key. The result is written by yoga's own result processor.
 * - Whatever it is not sure to serve exactly as yoga would goes to yoga, having written nothing:
 *   another method, path or media type, CORS requests, persisted queries, tracing, a body or
 *   `Accept` header it does not read, a document that does not parse or validate, an operation
 *   other than a query, `@defer`/`@stream`, a client over its rate limit (yoga's plugin answers
 *   the 429). Once it has admitted a request, it answers it. Without Redis the rate limit decides
 *   at once; the fleet's bucket in Redis answers later, and until then the request is this
 *   path's, which hands it to yoga itself if it is refused or not one to serve here.
 *
 * The request object, the log line and the metrics are the other doors' (request/request.ts,
 * request/log.ts); so is the coding of each answer (edge/compression/answer.ts). Its answers are
 * POSTs, `no-store`: like yoga's, they name no data for a CDN (`Surrogate-Key`: use-http-caching.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LRUCache } from 'lru-cache';
import { getOperationAST, type DocumentNode, type GraphQLSchema, type ExecutionArgs } from 'graphql';
import type { YogaServerInstance } from 'graphql-yoga';
import type { Clock } from '../../base/clock.js';
import type { GatewayContext } from '../../graph/context.js';
import type { Logger } from '../../base/logger.js';
import { REQUEST_ID_HEADER, requestIdFrom, runInRequest } from '../../request/record.js';
import { createRequest, type GatewayRequest } from '../../request/request.js';
import type { EndRequest } from '../../request/log.js';
import type { Admission } from '../admission/admission.js';
import { isRefusal, type Admitted } from '../admission/refusal.js';
import { countItems } from '../../graph/items.js';
import { isRunning, runningOperation } from '../../graph/running-operation.js';
import type { ResponseCache } from '../../response-cache/store.js';
import { keyedNow, learntOf, type Learnt } from '../../response-cache/unstorable.js';
import type { Compression } from '../compression/answer.js';
import { asksForParts } from '../../graph/incremental-document.js';
import { createTurnQueue } from './turns.js';
import { createLeanAnswers } from './answer.js';
import type { RunQuery } from '../../graph/execution/run.js';
import { answerMediaType, leanParams, leanRequest, isJsonContentType, type LeanRequest } from './request.js';

export interface LeanPathOptions {
  yoga: YogaServerInstance<object, GatewayContext>;
  logger: Logger;
  /** The request log and metrics of every HTTP door (request/log.ts). */
  end: EndRequest;
  /** The one admission (the API key, the rate limit, the parameter limits). */
  admission: Pick<Admission, 'key' | 'rate' | 'parameters'>;
  responseCache: Pick<ResponseCache, 'on' | 'keyOf' | 'stored' | 'sharedStored' | 'miss'>;
  /** How answers are compressed, as on yoga's path. */
  compression: Compression;
  /** CORS on: a request with `Origin` gets CORS headers, which yoga's path writes (plugins/protection/use-cors.ts). */
  cors: boolean;
  /** yoga's context factory: the same context as on yoga's path. */
  context: (initial: { request: LeanRequest }) => GatewayContext;
  /** Runs an admitted query as yoga's execution hooks would (graph/execution/run.ts). */
  run: RunQuery;
  /** yoga's parsed documents by query text (its `parserAndValidationCache`). */
  documents: { get(query: string): DocumentNode | undefined };
  /** The gateway's clock: a request's start, on its monotonic face. */
  clock: Clock;
}

/**
 * Serves `req` (its body already read into `req.body`, none when it was refused unread) on `res`
 * and answers true, or answers false at once, having written nothing: the request is then yoga's
 * (which does not count it for the rate limit again). `admitted`: its client, when the API key
 * was checked before its body was read.
 */
export type LeanPath = (req: IncomingMessage & { body?: Buffer }, res: ServerResponse, admitted?: Admitted) => boolean;

export function createLeanPath(options: LeanPathOptions): LeanPath {
  const { yoga, logger, end, admission, responseCache, compression, cors, documents, context, run, clock } = options;
  const endpoint = yoga.graphqlEndpoint;
  const url = `http://localhost${endpoint}`;
  // Documents yoga's parse and validation (the query limits included) passed, as yoga cached them:
  // the same text parses to the same document and validates the same way again.
  const valid = new WeakSet<DocumentNode>();
  // yoga's schema, as the first enveloped execution hands it out (before it, no document is valid).
  let schema: GraphQLSchema | undefined;
  const startInTurn = createTurnQueue();
  const { answerStored, answer } = createLeanAnswers({ end, compression, run, context });

  // Requests seen before, by their exact bytes and Accept header: the response-cache key their
  // parse made and the operation they run, so that a repeated request finds its stored answer
  // without reading its body again. Same bytes, same parse, same key: the key still comes from
  // exactly the parse that execution would use.
  // Keyed by the body alone, its `Accept` header kept in the entry: clients send one or two, and
  // a key of both was a new string to copy whole before it could be hashed.
  // What is learnt of its document is kept to ask whether it is still keyed (response-cache/unstorable.ts),
  // as a request parsed anew would be: both doors answer a document past its streak the same way.
  const known = new LRUCache<string, { accept: string; key: string; operation: string; learnt: Learnt }>({ maxSize: KNOWN_REQUEST_BYTES, sizeCalculation: (_entry, text) => text.length + 128 });

  return (req, res, admitted) => {
    const body = req.body;
    if (req.method !== 'POST' || req.url !== endpoint || body === undefined) return false;
    const headers = req.headers;
    if (!isJsonContentType(headers['content-type']) || (cors && headers.origin !== undefined)) return false;
    const mediaType = answerMediaType(headers.accept);
    if (mediaType === undefined) return false;
    const request = leanRequest(req, res, url);
    // The key was checked before the body was read (edge/admission/before-body.ts), when it was.
    const keyed = admitted ?? admission.key(request.headers);
    if (isRefusal(keyed)) return false;
    const client = keyed.client;
    const accept = headers.accept ?? '';
    // With no response cache, no request has a stored answer to find.
    const text = responseCache.on && body.length <= MAX_KNOWN_BODY_BYTES ? body.toString('latin1') : undefined;
    const record = createRequest(requestIdFrom(headers[REQUEST_ID_HEADER] as string | undefined), logger, clock.monotonic());
    // The request's one verdict (after the API key, before any parse), taken before its body was
    // read, else now: yoga's plugin reads the same one for a request handed over, and answers the
    // 429 of a refused one (edge/admission/rate-limit.ts keeps it). A verdict the fleet's bucket
    // (Redis) has not given yet makes the request this path's: handed to yoga once refused or not one for this path.
    const verdict = admission.rate.arrive(client, req);
    if (!(verdict instanceof Promise)) return verdict.allowed && serveAdmitted(req, res, request, record, client, mediaType, accept, text);
    void verdict.then((taken) => {
      if (!(taken.allowed && serveAdmitted(req, res, request, record, client, mediaType, accept, text))) void yoga(req, res);
    });
    return true;
  };

  // Private: an admitted request: the stored answer to the same bytes seen before, else its parse.
  // A stored answer starts no work on the request's behalf: only a parse runs in its async context
  // (request/record.ts), which cost a hit a new context frame (`npm run profile -- small on`).
  function serveAdmitted(
    req: IncomingMessage & { body?: Buffer }, res: ServerResponse, request: LeanRequest, record: GatewayRequest,
    client: string | undefined, mediaType: string, accept: string, text: string | undefined,
  ): boolean {
    const entry = text === undefined ? undefined : known.get(text);
    const seen = entry?.accept === accept && keyedNow(entry.learnt) ? entry : undefined;
    const hit = seen === undefined ? undefined : responseCache.stored(seen.key, record);
    if (seen !== undefined && hit !== undefined) {
      answerStored(record, client, seen.operation, res, hit);
      return true;
    }
    return runInRequest(record, () => serveParsed(req, res, request, record, client, mediaType, accept, text));
  }

  // Private: a request read in full: its parameters, yoga's parse and validation, the stored
  // answer or an execution.
  function serveParsed(
    req: IncomingMessage & { body?: Buffer }, res: ServerResponse, request: LeanRequest, record: GatewayRequest,
    client: string | undefined, mediaType: string, accept: string, text: string | undefined,
  ): boolean {
    const params = leanParams(req.body!);
    if (params === undefined || admission.parameters(params.query, params.variables) !== undefined) return false;
    let document = documents.get(params.query);
    if (document === undefined || !valid.has(document)) {
      const enveloped = yoga.getEnveloped({ request, params, req, res } as never);
      const parsed = parseOrUndefined(enveloped, params.query);
      if (parsed === undefined || enveloped.validate(enveloped.schema, parsed).length > 0) return false;
      schema = enveloped.schema;
      valid.add(parsed);
      document = parsed;
    }
    const operation = getOperationAST(document, params.operationName);
    if (operation?.operation !== 'query' || asksForParts(document)) return false;
    // A stored answer needs no context: it is looked up as the response cache's own hook would.
    // These arguments are the ones executed (their context added then), so the running operation
    // and the key are worked out once, here, and the execution hooks find them (both memoized by
    // the arguments object).
    const args: ExecutionArgs = { schema: schema!, document, variableValues: params.variables, operationName: params.operationName, contextValue: undefined };
    const key = responseCache.keyOf(args, accept);
    const operationName = operation.name?.value ?? 'anonymous';
    if (key !== undefined && text !== undefined) known.set(text, { accept, key, operation: operationName, learnt: learntOf(document) });
    const hit = key === undefined ? undefined : responseCache.stored(key, record);
    if (hit !== undefined) {
      answerStored(record, client, operationName, res, hit);
      return true;
    }
    const execute = () => {
      record.graphql = true;
      record.client = client;
      record.operations.push(operationName);
      if (key !== undefined) responseCache.miss(request, key, document, record);
      const go = () => void answer(args, { request, params, req, res }, record, res, mediaType);
      // A large answer starts in its own turn, in arrival order (turns.ts), as the work of its own
      // request; a small one at once, so that it never waits behind large ones.
      if (large(args)) startInTurn(() => runInRequest(record, go));
      else go();
    };
    // Missed here: the answer the replicas share, when there is a level to ask (with Redis).
    const shared = key === undefined ? undefined : responseCache.sharedStored(args, key);
    if (shared === undefined) execute();
    else void shared.then((found) => (found === undefined ? execute() : answerStored(record, client, operationName, res, found)));
    return true;
  }
}

/** Bytes of requests remembered with their response-cache keys (`known`), and the largest body remembered. */
const KNOWN_REQUEST_BYTES = 4 * 1024 * 1024;
const MAX_KNOWN_BODY_BYTES = 4096;

/** List entries (graph/items.ts's count) above which an answer is large. */
const LARGE_ANSWER_ITEMS = 100;

// Private: whether the operation could return more than LARGE_ANSWER_ITEMS list entries (the
// running operation is worked out once per execution arguments and shared with the checks).
function large(args: ExecutionArgs): boolean {
  const running = runningOperation(args);
  return isRunning(running) && countItems(args.schema, running) > LARGE_ANSWER_ITEMS;
}

// Private: a syntax error (or a refusal while parsing: the token limit) is yoga's to answer.
function parseOrUndefined(enveloped: { parse(query: string): DocumentNode }, query: string): DocumentNode | undefined {
  try {
    return enveloped.parse(query);
  } catch {
    return undefined;
  }
}
