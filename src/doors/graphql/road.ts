/**
 * The HTTP road of every GraphQL request (a GET, a JSON, form or GraphQL-string POST, a batch),
 * served straight from Node's request: admission, parameters, yoga's enveloped parse and
 * validate, the answer cache, execution, then yoga's result encoders, whole or in parts. Every
 * refusal on the way (the admission's, the parameters', the document's errors) is answered here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LRUCache } from 'lru-cache';
import { getOperationAST, type DocumentNode, type ExecutionArgs, type GraphQLError } from 'graphql';
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
import { repeatsParameter } from '../../response-cache/key.js';
import type { Compression } from '../../encoding/compress.js';
import type { Cors } from '../../encoding/cors.js';
import type { CachingHeaders } from '../../encoding/http-caching.js';
import { asksForParts } from '../../graph/incremental-document.js';
import { createTurnQueue } from './turns.js';
import { createAnswers } from './respond.js';
import { createBatches } from './batch.js';
import { createInParts, type TraceParts } from './in-parts.js';
import { createDocuments, unresolved } from './documents.js';
import type { RunQuery } from '../../graph/execution/run.js';
import { answerMediaType, encodingFor, hookRequest, notAcceptable, type HookRequest } from './request.js';
import { bodyKind, bodyParams, jsonBody, searchParams, LISTED_PARAMETER_NAMES, PARAMETER_NAMES, type GraphQLParams } from './read.js';
import { nodeHeaders } from '../../admission/api-key.js';
import type { BodyAdmission } from '../../admission/before-body.js';
import { isRefusal, refusal, refusalError, type Refusal } from '../../admission/refusal.js';
import { urlIds } from '../../admission/persisted.js';
import type { PersistedQueryStore } from '../../admission/automatic-persisted.js';
import { OTHER_METHOD, UNREADABLE_BODY } from '../../admission/route.js';
import { createParamsReader } from './params.js';

export interface GraphQLRoadOptions {
  yoga: YogaServerInstance<DoorContext, GatewayContext>;
  /** Whether GraphiQL is served: a browser asking for a page while it is off is told so. */
  graphiql: boolean;
  /** The request log and metrics every HTTP door shares. */
  end: EndRequest;
  admission: Pick<Admission, 'rate' | 'parameters' | 'persisted' | 'csrf'>;
  /** The API key and rate limit from a request's headers (admission/before-body.ts): a GET's, which the door did not admit. */
  admit: BodyAdmission;
  /** `BATCHING_LIMIT`: the most operations a batch may have (0: batching is off). */
  batchingLimit: number;
  /** The automatic persisted queries' store. */
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
  context: (initial: { request: HookRequest; gatewayRequest: GatewayRequest }) => GatewayContext;
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
 * Serves `req` (its body read, none when refused unread) on `res`. `record`: its request object,
 * its client and rate-limit verdict noted by the body admission.
 */
export type GraphQLRoad = (req: IncomingMessage & { body?: Buffer }, res: ServerResponse, record: GatewayRequest) => void;

export function createGraphQLRoad(options: GraphQLRoadOptions): GraphQLRoad {
  const { yoga, graphiql, end, admission, admit, apq, batchingLimit, responseCache, compression, cors, caching, documents, context, run, allowList, traceStored } = options;
  const names = allowList ? LISTED_PARAMETER_NAMES : PARAMETER_NAMES;
  const readParams = createParamsReader({ admission, apq, allowList, names });
  const url = `http://localhost${yoga.graphqlEndpoint}`;
  const { documentFor, schema } = createDocuments(yoga, documents);
  const startInTurn = createTurnQueue();
  const answers = createAnswers({ end, compression, cors, caching, run, context, fetchAPI: yoga.fetchAPI });
  const { answerStored, answer, answerAs, refuse, resultOf } = answers;
  const inParts = createInParts(yoga, answers, { traced: options.traceParts, graphiql });
  const batch = createBatches({
    limit: batchingLimit, rate: admission.rate, answerAs, resultOf, apq,
    read: readParams,
    document: documentFor,
    schema,
  });

  // Requests seen before by their exact body: the key their parse made, so a repeat skips the parse.
  const known = new LRUCache<string, { accept: string; key: string; operation: string; learnt: Learnt }>({ maxSize: KNOWN_REQUEST_BYTES, sizeCalculation: (_entry, text) => text.length + 128 });

  return (req, res, record) => {
    const read = req.method === 'GET' || req.method === 'HEAD';
    // A GET is admitted from its headers here; a body's admission came at the door, which left a refused one unread.
    const admitted = read ? admit(req, record) : req.body !== undefined && (record.keyChecked || admit(req, record));
    if (!(admitted instanceof Promise)) return admitted ? serveRead(req, res, record) : refuseAdmission(res, record);
    void admitted.then((ok) => (ok ? serveRead(req, res, record) : refuseAdmission(res, record)));
  };

  // Private: the refusal of a request its admission refused: its API key, else its rate limit.
  function refuseAdmission(res: ServerResponse, record: GatewayRequest): void {
    const keyed = record.keyRefused;
    const taken = record.verdict;
    record.rejectedAs = keyed === undefined ? 'rate_limited' : 'unauthenticated';
    refuse(record, res, keyed ?? (taken === undefined || taken instanceof Promise ? undefined : admission.rate.refusal(taken)) ?? refusal('RATE_LIMITED'));
  }

  // Private: an admitted request: its route, media types and parameters read, or refused, in GraphQL over HTTP's order.
  function serveRead(req: IncomingMessage & { body?: Buffer }, res: ServerResponse, record: GatewayRequest): void {
    const get = req.method === 'GET' || req.method === 'HEAD';
    const body = req.body;
    const headers = req.headers;
    const given = get ? 'get' : req.method === 'POST' && body !== undefined ? bodyKind(headers['content-type']) : undefined;
    // JSON under another name: read as JSON, never looked up nor stored.
    const kind = given === 'graphql+json' ? 'json' : given;
    if (given !== kind) record.uncacheable = true;
    const accept = headers.accept ?? '';
    // JSON's media type, when the client accepts it; with none, an answer in parts.
    const mediaType = answerMediaType(accept);
    const answerable = mediaType !== undefined || encodingFor(accept, true, false) !== undefined;
    // A request a browser sends without a preflight and without a CSRF header (`CSRF_PREVENTION`) is refused unread.
    const csrf = kind === 'json' ? undefined : admission.csrf(nodeHeaders(req));
    if (csrf !== undefined && answerable) return refuseParams(record, res, csrf, accept);
    // Another method, or a body of a media type not read: refused as such, whatever it holds; then an Accept nothing meets.
    if (kind === undefined) return refuse(record, res, req.method === 'POST' ? UNREADABLE_BODY : OTHER_METHOD);
    if (!answerable) return refuse(record, res, notAcceptable(req, false, graphiql));
    const search = get ? searchOf(req.url!) : '';
    const query = get ? new URLSearchParams(search) : undefined;
    if (query !== undefined && repeatsParameter(query)) record.uncacheable = true;
    const ids = get && allowList ? urlIds(`?${search}`) : undefined;
    if (isRefusal(ids)) return refuseParams(record, res, ids, accept);
    const sent = kind === 'get' ? searchParams(query!, names) : kind === 'json' ? undefined : bodyParams(kind, body!, names);
    if (sent instanceof Error) return answerErrors(record, res, [sent], accept);
    const params = sent === undefined ? undefined : readParams(sent, record);
    if (isRefusal(params)) return refuseParams(record, res, params, accept);
    if (params instanceof Error) return answerErrors(record, res, [params], accept);
    // A form or a GraphQL string two readers could read otherwise: never looked up nor stored.
    if (kind === 'form' || kind === 'graphql') record.uncacheable = true;
    const request = hookRequest(req, res, url);
    // In allow-list mode the list may be swapped: a body's key is not remembered across it.
    const text = given !== 'json' || !responseCache.on || allowList || traceStored !== undefined || body!.length > MAX_KNOWN_BODY_BYTES ? undefined : body!.toString('latin1');
    serveAdmitted(req, res, request, record, mediaType, accept, text, params);
  }

  // Private: a refusal once the parameters are read: a result of errors, its status by `Accept` as GraphQL over HTTP sets it.
  function refuseParams(record: GatewayRequest, res: ServerResponse, refused: Refusal, accept: string): void {
    answerErrors(record, res, [refusalError(refused)], accept);
  }

  function answerErrors(record: GatewayRequest, res: ServerResponse, errors: GraphQLError[], accept: string): void {
    answerAs(record, res, { errors }, accept, false);
  }

  // Private: an admitted request: the stored answer to the same bytes seen before, else its parse.
  function serveAdmitted(
    req: IncomingMessage & { body?: Buffer }, res: ServerResponse, request: HookRequest, record: GatewayRequest,
    mediaType: string | undefined, accept: string, text: string | undefined, read: GraphQLParams | undefined,
  ): void {
    const client = record.client;
    const entry = text === undefined ? undefined : known.get(text);
    const seen = entry?.accept === accept && keyedNow(entry.learnt) ? entry : undefined;
    const hit = seen === undefined ? undefined : responseCache.stored(seen.key, record);
    if (seen !== undefined && hit !== undefined) return answerStored(record, client, seen.operation, res, hit);
    runInRequest(record, () => serveParsed(req, res, request, record, client, mediaType, accept, text, read));
  }

  // Private: a request read in full: parameters, yoga's parse and validation, stored answer or execution.
  function serveParsed(
    req: IncomingMessage & { body?: Buffer }, res: ServerResponse, request: HookRequest, record: GatewayRequest,
    client: string | undefined, mediaType: string | undefined, accept: string, text: string | undefined, read: GraphQLParams | undefined,
  ): void {
    const body = read === undefined ? jsonBody(req.body!) : undefined;
    if (body instanceof Error) return answerErrors(record, res, [body], accept);
    if (Array.isArray(body)) return batch(req, res, request, record, body, accept);
    const params = read ?? readParams(body!, record);
    if (isRefusal(params)) return refuseParams(record, res, params, accept);
    if (params instanceof Error) return answerErrors(record, res, [params], accept);
    const initial = { request, params, req, res, gatewayRequest: record };
    const document = documentFor(params, initial);
    // A document that does not parse or validate is answered with its errors.
    if (Array.isArray(document)) return answerErrors(record, res, document, accept);
    const operation = getOperationAST(document, params.operationName);
    // No single operation to run (several without a name asked for, or a name none has).
    if (operation == null) return answerErrors(record, res, [unresolved()], accept);
    const kind = operation.operation;
    if (params.register !== undefined) apq.register(params.register, params.query);
    if (kind === 'subscription' || asksForParts(document) || mediaType === undefined) {
      return inParts(initial, res, document, params, accept, mediaType, kind === 'subscription');
    }
    // The running operation and key are worked out once, on the arguments executed (both memoized by them).
    const args: ExecutionArgs = { schema: schema(), document, variableValues: params.variables, operationName: params.operationName, contextValue: undefined };
    const key = record.uncacheable ? undefined : responseCache.keyOf(args, accept);
    const operationName = operation.name?.value ?? 'anonymous';
    if (key !== undefined && text !== undefined) known.set(text, { accept, key, operation: operationName, learnt: learntOf(document) });
    const hit = key === undefined ? undefined : responseCache.stored(key, record);
    if (hit !== undefined) {
      traceStored?.(document, params.operationName, params.query);
      return answerStored(record, client, operationName, res, hit);
    }
    const execute = () => {
      record.graphql = true;
      record.client = client;
      record.operations.push(operationName);
      if (key !== undefined) responseCache.miss(record, key, document);
      const go = () => void answer(args, initial, res, mediaType);
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
  }
}

/** A request target's query string, as yoga's GET parser takes it: after the first `?`, else none. */
function searchOf(target: string): string {
  const at = target.indexOf('?');
  return at < 0 ? '' : target.slice(at + 1);
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
