/**
 * What the lean path reads of a request, without Fetch API objects: a JSON body's GraphQL
 * parameters, the media type yoga would answer with, and a stand-in for the `Request` the
 * execution hooks read. Each answers `undefined` where it is not sure to read exactly as yoga
 * does, and the request goes to yoga.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HeaderReader } from '../../admission/api-key.js';

export interface LeanParams {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
  /** An automatic persisted query's hash, to register `query` under once it validates. */
  register?: string;
}

/** A JSON body's parameters, its query not yet checked. */
export type LeanBody = Omit<LeanParams, 'query'> & { query?: unknown; [name: string]: unknown };

/** What a JSON body may name besides its query: the allow-list's ids, in allow-list mode. */
export type ParamNames = ReadonlySet<string>;
export const PARAMETER_NAMES: ParamNames = new Set(['query', 'variables', 'operationName', 'extensions']);
export const LISTED_PARAMETER_NAMES: ParamNames = new Set([...PARAMETER_NAMES, 'documentId', 'doc_id', 'id']);

/**
 * A JSON body's parameters (a batch's, each, for an array) when they are only `names`,
 * `variables` an object or null and `operationName` a string; anything else is yoga's. The query
 * is checked by the caller.
 */
export function leanParams(body: Buffer, names: ParamNames = PARAMETER_NAMES): LeanBody | LeanBody[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed)) return paramsOf(parsed, names);
  const batch = parsed.map((item) => paramsOf(item, names));
  return batch.length === 0 || batch.includes(undefined) ? undefined : (batch as LeanBody[]);
}

// Private: one operation's parameters, as leanParams reads them.
function paramsOf(parsed: unknown, names: ParamNames): LeanBody | undefined {
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const params = parsed as Record<string, unknown>;
  for (const name in params) if (!names.has(name)) return undefined;
  return checked(params);
}

// Private: `params` when `variables` is an object or null and `operationName` a string.
function checked(params: Record<string, unknown>): LeanBody | undefined {
  const { variables, operationName } = params;
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) return undefined;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return undefined;
  return params as LeanBody;
}

/**
 * A GET's parameters from its query string, as yoga's GET parser reads them (an empty one is
 * none; `variables` and `extensions` JSON), when each is one of `names` and given once; anything
 * else (a repeat a cache could read otherwise, JSON that does not parse) is yoga's.
 */
export function searchParams(search: string, names: ParamNames = PARAMETER_NAMES): LeanBody | undefined {
  const params: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(search)) {
    if (!names.has(name) || Object.hasOwn(params, name)) return undefined;
    if (value === '') continue;
    if (name !== 'variables' && name !== 'extensions') params[name] = value;
    else {
      try {
        params[name] = JSON.parse(value);
      } catch {
        return undefined;
      }
    }
  }
  return checked(params);
}

/**
 * The bodies yoga reads, by the media type its `isContentTypeMatch` reads (anything else: a 415);
 * `graphql+json` is JSON that yoga's path never caches, left to it.
 */
const BODY_KINDS = [
  ['json', 'application/json'], ['graphql+json', 'application/graphql+json'], ['form', 'application/x-www-form-urlencoded'], ['graphql', 'application/graphql'],
] as const;
export type BodyKind = (typeof BODY_KINDS)[number][0];

/** What kind of body `Content-Type` says, read as yoga reads it. */
export function bodyKind(header: string | undefined): BodyKind | undefined {
  const contentType = header?.split(',', 1)[0];
  for (const [kind, type] of BODY_KINDS) if (contentType === type || contentType?.startsWith(`${type};`) === true) return kind;
  return undefined;
}

/** A form's parameters (read as a GET's), or a GraphQL string's query; an empty one is yoga's. */
export function bodyParams(kind: 'form' | 'graphql', body: Buffer, names: ParamNames): LeanBody | undefined {
  const text = body.toString('utf8');
  if (kind === 'form') return searchParams(text, names);
  return text === '' ? undefined : { query: text };
}

/** What writes a result: yoga's JSON processor, its event stream, or multipart parts. */
export type Encoder = 'regular' | 'sse' | 'multipart';

/** The result processors yoga tries, in its order, and the media types each answers with. */
const PROCESSORS: ReadonlyArray<{ encoder: Encoder; mediaTypes: readonly string[] }> = [
  { encoder: 'sse', mediaTypes: ['text/event-stream'] },
  { encoder: 'multipart', mediaTypes: ['multipart/mixed'] },
  { encoder: 'regular', mediaTypes: ['application/graphql-response+json', 'application/json'] },
];
const answerTypes = new Map<string, string | undefined>();
/** Distinct `Accept` headers remembered; clients send a handful. */
const MAX_ACCEPT_HEADERS = 256;

/**
 * The encoder and media type yoga's result processors pick for `accept` (the last match wins):
 * for a result in parts (`iterable`) only those that write parts; for a subscription none in
 * multipart. Undefined: none, a 406.
 */
export function encodingFor(accept: string | undefined, iterable: boolean, subscription: boolean): { encoder: Encoder; mediaType: string } | undefined {
  const asked = (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',').flatMap((one) => {
    const [type, ...params] = one.split(';');
    const charset = params.find((param) => param.includes('charset=')) ?? 'charset=utf-8';
    return type === undefined || charset !== 'charset=utf-8' ? [] : [type];
  }).reverse();
  let chosen: { encoder: Encoder; mediaType: string } | undefined;
  for (const { encoder, mediaTypes } of PROCESSORS) {
    if ((iterable && encoder === 'regular') || (subscription && encoder === 'multipart')) continue;
    for (const type of asked) {
      for (const mediaType of mediaTypes) if (matches(mediaType, type)) chosen = { encoder, mediaType };
    }
  }
  return chosen;
}

/** The media type yoga's negotiation picks for `accept` when it is its JSON processor's; memoized per header. */
export function answerMediaType(accept: string | undefined): string | undefined {
  const header = accept ?? '';
  if (answerTypes.has(header)) return answerTypes.get(header);
  const chosen = encodingFor(header, false, false);
  const answer = chosen?.encoder === 'regular' ? chosen.mediaType : undefined;
  if (answerTypes.size < MAX_ACCEPT_HEADERS) answerTypes.set(header, answer);
  return answer;
}

function matches(offered: string, asked: string): boolean {
  const [offeredType, offeredSubtype] = offered.split('/');
  const [askedType, askedSubtype] = asked.split('/');
  return (askedType === '*' || askedType === offeredType) && (askedSubtype === '*' || askedSubtype === offeredSubtype);
}

/** The part of a Fetch `Request` the execution hooks read, over Node's request. */
export interface LeanRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: HeaderReader;
  /** Aborts when the client goes before its answer is sent; made on first use. */
  readonly signal: AbortSignal;
}

/** The stand-in for `req`, answered on `res`. */
export function leanRequest(req: IncomingMessage, res: ServerResponse, url: string): LeanRequest {
  return new NodeRequest(req, res, url);
}

// Private: a class, its methods shared, not made again for every request.
class NodeRequest implements LeanRequest, HeaderReader {
  #signal: AbortSignal | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    readonly url: string,
  ) {}

  get method(): string {
    return this.req.method ?? 'POST';
  }

  get headers(): HeaderReader {
    return this;
  }

  get(name: string): string | null {
    const value = this.req.headers[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  }

  get signal(): AbortSignal {
    if (this.#signal === undefined) {
      const controller = new AbortController();
      const res = this.res;
      res.once('close', () => {
        if (!res.writableFinished) controller.abort(new Error('the client disconnected'));
      });
      this.#signal = controller.signal;
    }
    return this.#signal;
  }
}
