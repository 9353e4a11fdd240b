/**
 * The lean path: GraphQL requests (a JSON, form or GraphQL-string POST, a GET, a batch) served
 * straight from Node's request, without yoga's Fetch layer, which dominates the cost of a cache
 * hit. It changes how a request is served, never what it answers: same admission, yoga's
 * enveloped parse and validate, same execution and cache key, yoga's result processors. It answers
 * its refusals too (the admission's, the parameters', the document's errors) and answers in parts;
 * what it does not read exactly as yoga does goes to yoga having written nothing.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LRUCache } from 'lru-cache';
import { getOperationAST, type DocumentNode, type ExecutionArgs } from 'graphql';
import type { YogaServerInstance } from 'graphql-yoga';
import type { DoorContext, GatewayRequest } from '../../request/request.js';
import type { GatewayContext } from '../../graph/context.js';
import { runInRequest } from '../../request/current.js';

import type { EndRequest } from '../../request/log.js';
import type { Admission } from '../../admission/admission.js';
import { countItems } from '../../graph/items.js';
import { isRunning, runningOperation } from '../../graph/running-operation.js';
import type { ResponseCache } from '../../response-cache/store.js';
import { keyedNow, learntOf, type Learnt } from '../../response-cache/unstorable.js';
import type { Compression } from '../../encoding/compress.js';
import type { Cors } from '../../encoding/cors.js';
import type { CachingHeaders } from '../../encoding/http-caching.js';
import { asksForParts } from '../../graph/incremental-document.js';
import { createTurnQueue } from './turns.js';
import { createLeanAnswers } from './respond.js';
import { createBatches } from './batch.js';
import { createInParts, type TraceParts } from './in-parts.js';
import { createDocuments } from './documents.js';
import type { RunQuery } from '../../graph/execution/run.js';
import { answerMediaType, bodyKind, bodyParams, encodingFor, leanParams, leanRequest, searchParams, LISTED_PARAMETER_NAMES, PARAMETER_NAMES, type LeanParams, type LeanRequest } from './request.js';
import { nodeHeaders } from '../../admission/api-key.js';
import type { BodyAdmission } from '../../admission/before-body.js';
import { isRefusal, refusalError, type Refusal } from '../../admission/refusal.js';
import type { PersistedQueryStore } from '../../admission/automatic-persisted.js';
import { OTHER_METHOD, UNREADABLE_BODY } from '../../admission/route.js';
import { createParamsReader } from './params.js';

export interface LeanPathOptions {
  yoga: YogaServerInstance<DoorContext, GatewayContext>;
  /** The door's other road: yoga's HTTP layer, for a request this hands on after its verdict came. */
  handOn: (req: IncomingMessage, res: ServerResponse, record: GatewayRequest) => void;
  /** The request log and metrics every HTTP door shares. */
  end: EndRequest;
  admission: Pick<Admission, 'rate' | 'parameters' | 'persisted' | 'csrf'>;
  /** The API key and rate limit from a request's headers (admission/before-body.ts): a GET's, which the door did not admit. */
  admit: BodyAdmission;
  /** `BATCHING_LIMIT`: the most operations a batch may have (0: batching is off). */
  batchingLimit: number;
  /** The automatic persisted queries' store yoga's path registers in too. */
  apq: PersistedQueryStore;
  /** Allow-list mode (`PERSISTED_OPERATIONS_FILE`): a request names a listed document by id. */
  allowList: boolean;
  responseCache: Pick<ResponseCache, 'on' | 'keyOf' | 'stored' | 'sharedStored' | 'miss'>;
  compression: Compression;
  /** The CORS headers every answer carries (encoding/cors.ts). */
  cors: Cors;
  /** The HTTP caching headers every GraphQL answer gets (encoding/http-caching.ts). */
  caching: CachingHeaders;
  /** yoga's context factory. */
  context: (initial: { request: LeanRequest; gatewayRequest: GatewayRequest }) => GatewayContext;
  /** Runs an admitted query as yoga's execution hooks would. */
  run: RunQuery;
  /** With tracing: notes the operation of an answer served stored (a body's known key is then not used: its span needs the document). */
  traceStored: ((document: DocumentNode, operationName: string | null | undefined, query: string) => void) | undefined;
  /** With tracing: runs an answer in parts in its operation span. */
  traceParts: TraceParts | undefined;
  /** yoga's parsed documents by query text (its `parserAndValidationCache`). */
  documents: { get(query: string): DocumentNode | undefined };
}

/**
 * Serves `req` (its body read, none when refused unread) on `res` and answers true, or answers
 * false having written nothing: the request is then yoga's. `record`: its request object, its
 * client and rate-limit verdict noted by the body admission.
 */
export type LeanPath = (req: IncomingMessage & { body?: Buffer }, res: ServerResponse, record: GatewayRequest) => boolean;

export function createLeanPath(options: LeanPathOptions): LeanPath {
  const { yoga, handOn, end, admission, admit, apq, batchingLimit, responseCache, compression, cors, caching, documents, context, run, allowList, traceStored } = options;
  const names = allowList ? LISTED_PARAMETER_NAMES : PARAMETER_NAMES;
  const readParams = createParamsReader({ admission, apq, allowList });
  const endpoint = yoga.graphqlEndpoint;
  const url = `http://localhost${endpoint}`;
  const { documentFor, schema } = createDocuments(yoga, documents);
  const startInTurn = createTurnQueue();
  const answers = createLeanAnswers({ end, compression, cors, caching, run, context, fetchAPI: yoga.fetchAPI });
  const { answerStored, answer, answerResult, answerAs, refuse, resultOf } = answers;
  const inParts = createInParts(yoga, answers, options.traceParts);
  const batch = createBatches({
    limit: batchingLimit, rate: admission.rate, answerResult, resultOf, apq,
    read: readParams,
    document: documentFor,
    schema,
  });

  // Requests seen before by their exact body: the key their parse made, so a repeat skips the parse.
  const known = new LRUCache<string, { accept: string; key: string; operation: string; learnt: Learnt }>({ maxSize: KNOWN_REQUEST_BYTES, sizeCalculation: (_entry, text) => text.length + 128 });

  return (req, res, record) => {
    const get = req.method === 'GET';
    // A body's query string is not read, as yoga reads none.
    if (!(get ? req.url!.startsWith(`${endpoint}?`) : req.method !== 'OPTIONS' && (req.url === endpoint || req.url!.startsWith(`${endpoint}?`)))) return false;
    // A GET is admitted from its headers here; a body's admission came at the door, which left a refused one unread.
    const admitted = get ? admit(req, record) : req.body !== undefined && (record.keyChecked || admit(req, record));
    if (!(admitted instanceof Promise)) return admitted ? serveRead(req, res, record) : refuseAdmission(res, record);
    void admitted.then((ok) => {
      if (!(ok ? serveRead(req, res, record) : refuseAdmission(res, record))) handOn(req, res, record);
    });
    return true;
  };

  // Private: the refusal of a request its admission refused (its API key, else its rate limit), as yoga refuses it before reading it.
  function refuseAdmission(res: ServerResponse, record: GatewayRequest): boolean {
    const keyed = record.keyRefused;
    const taken = record.verdict;
    const refused = keyed ?? (taken === undefined || taken instanceof Promise ? undefined : admission.rate.refusal(taken));
    if (refused === undefined) return false;
    record.rejectedAs = keyed === undefined ? 'rate_limited' : 'unauthenticated';
    refuse(record, res, refused);
    return true;
  }

  // Private: an admitted request: its parameters read, refused as yoga's steps would refuse them, else served.
  function serveRead(req: IncomingMessage & { body?: Buffer }, res: ServerResponse, record: GatewayRequest): boolean {
    const get = req.method === 'GET';
    const post = req.method === 'POST';
    const body = req.body;
    const headers = req.headers;
    if (!get && body === undefined) return false;
    const kind = get ? 'get' : post ? bodyKind(headers['content-type']) : undefined;
    if (kind === 'graphql+json') return false;
    const accept = headers.accept ?? '';
    // JSON's media type, when the client accepts it; with none, an answer in parts (or yoga's 406).
    const mediaType = answerMediaType(accept);
    if (mediaType === undefined && encodingFor(accept, true, false) === undefined) return false;
    // A request a browser sends without a preflight and without a CSRF header (`CSRF_PREVENTION`) is refused unread.
    const csrf = kind === 'json' ? undefined : admission.csrf(nodeHeaders(req));
    if (csrf !== undefined) return refuseParams(record, res, csrf, accept);
    // Another method, or a body of a media type not read: refused as such, whatever it holds.
    if (kind === undefined) {
      refuse(record, res, post ? UNREADABLE_BODY : OTHER_METHOD);
      return true;
    }
    const read = kind === 'get' ? searchParams(req.url!.slice(endpoint.length + 1), names) : kind === 'json' ? undefined : bodyParams(kind, body!, names);
    if (kind !== 'json' && read === undefined) return false;
    const params = read === undefined ? undefined : readParams(read, record);
    if (isRefusal(params)) return refuseParams(record, res, params, accept);
    if (kind !== 'json' && params === undefined) return false;
    // A form or a GraphQL string two readers could read otherwise: never looked up nor stored.
    if (kind === 'form' || kind === 'graphql') record.uncacheable = true;
    const request = leanRequest(req, res, url);
    // In allow-list mode the list may be swapped: a body's key is not remembered across it.
    const text = kind !== 'json' || !responseCache.on || allowList || traceStored !== undefined || body!.length > MAX_KNOWN_BODY_BYTES ? undefined : body!.toString('latin1');
    return serveAdmitted(req, res, request, record, mediaType, accept, text, params);
  }

  // Private: a refusal once the parameters are read, answered as a result, as yoga answers the error its steps throw.
  function refuseParams(record: GatewayRequest, res: ServerResponse, refused: Refusal, accept: string): true {
    answerAs(record, res, { errors: [refusalError(refused)] }, accept, false);
    return true;
  }

  // Private: an admitted request: the stored answer to the same bytes seen before, else its parse.
  function serveAdmitted(
    req: IncomingMessage & { body?: Buffer }, res: ServerResponse, request: LeanRequest, record: GatewayRequest,
    mediaType: string | undefined, accept: string, text: string | undefined, read: LeanParams | undefined,
  ): boolean {
    const client = record.client;
    const entry = text === undefined ? undefined : known.get(text);
    const seen = entry?.accept === accept && keyedNow(entry.learnt) ? entry : undefined;
    const hit = seen === undefined ? undefined : responseCache.stored(seen.key, record);
    if (seen !== undefined && hit !== undefined) {
      answerStored(record, client, seen.operation, res, hit);
      return true;
    }
    return runInRequest(record, () => serveParsed(req, res, request, record, client, mediaType, accept, text, read));
  }

  // Private: a request read in full: parameters, yoga's parse and validation, stored answer or execution.
  function serveParsed(
    req: IncomingMessage & { body?: Buffer }, res: ServerResponse, request: LeanRequest, record: GatewayRequest,
    client: string | undefined, mediaType: string | undefined, accept: string, text: string | undefined, read: LeanParams | undefined,
  ): boolean {
    const body = read === undefined ? leanParams(req.body!, names) : undefined;
    if (Array.isArray(body)) return mediaType !== undefined && batch(req, res, request, record, body, mediaType);
    const params = read ?? readParams(body, record);
    if (params === undefined) return false;
    if (isRefusal(params)) return refuseParams(record, res, params, accept);
    const document = documentFor(params, { request, params, req, res, gatewayRequest: record });
    // A document that does not parse or validate is answered with its errors, as yoga answers them.
    if (Array.isArray(document)) {
      answerAs(record, res, { errors: document }, accept, false);
      return true;
    }
    if (params.register !== undefined) apq.register(params.register, params.query);
    const operation = getOperationAST(document, params.operationName);
    const kind = operation?.operation;
    if (kind === 'subscription' || (kind === 'query' && asksForParts(document))) {
      return inParts({ request, params, req, res, gatewayRequest: record }, res, document, params, accept, mediaType, kind === 'subscription');
    }
    // A plain query to a client that accepts no JSON is yoga's, which may store its one part.
    if (kind !== 'query' || mediaType === undefined) return false;
    // The running operation and key are worked out once, on the arguments executed (both memoized by them).
    const args: ExecutionArgs = { schema: schema(), document, variableValues: params.variables, operationName: params.operationName, contextValue: undefined };
    const key = record.uncacheable ? undefined : responseCache.keyOf(args, accept);
    const operationName = operation!.name?.value ?? 'anonymous';
    if (key !== undefined && text !== undefined) known.set(text, { accept, key, operation: operationName, learnt: learntOf(document) });
    const hit = key === undefined ? undefined : responseCache.stored(key, record);
    if (hit !== undefined) {
      traceStored?.(document, params.operationName, params.query);
      answerStored(record, client, operationName, res, hit);
      return true;
    }
    const execute = () => {
      record.graphql = true;
      record.client = client;
      record.operations.push(operationName);
      if (key !== undefined) responseCache.miss(record, key, document);
      const go = () => void answer(args, { request, params, req, res, gatewayRequest: record }, res, mediaType);
      // A large answer starts in its own turn, in arrival order, so small ones never wait behind it.
      if (large(args)) startInTurn(() => runInRequest(record, go));
      else go();
    };
    const shared = key === undefined ? undefined : responseCache.sharedStored(args, key, record);
    if (shared === undefined) execute();
    else {
      void shared.then((found) => {
        if (found === undefined) return execute();
        traceStored?.(document!, params.operationName, params.query);
        answerStored(record, client, operationName, res, found);
      });
    }
    return true;
  }
}

/** Bytes of requests remembered with their response-cache keys (`known`), and the largest body remembered. */
const KNOWN_REQUEST_BYTES = 4 * 1024 * 1024;
const MAX_KNOWN_BODY_BYTES = 4096;

/** List entries (graph/items.ts's count) above which an answer is large. */
const LARGE_ANSWER_ITEMS = 100;

// Private: whether the operation could return more than LARGE_ANSWER_ITEMS list entries.
function large(args: ExecutionArgs): boolean {
  const running = runningOperation(args);
  return isRunning(running) && countItems(args.schema, running) > LARGE_ANSWER_ITEMS;
}
