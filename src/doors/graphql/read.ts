/**
 * A GraphQL request's parameters, read from its query string or body as GraphQL over HTTP reads
 * them: a GET's or a form's first value of each name, a JSON body's object (a batch's array), a
 * GraphQL string's query; then checked as yoga checks them, with its messages, once the persisted
 * document (if any) has filled the query in.
 */
import type { GraphQLError } from 'graphql';
import { coded } from '../../base/graph-errors.js';

export interface GraphQLParams {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
  /** An automatic persisted query's hash, to register `query` under once it validates. */
  register?: string;
}

/** A request's parameters as sent, nothing of them checked yet. */
export type SentParams = { query?: unknown; variables?: unknown; operationName?: unknown; extensions?: unknown; [name: string]: unknown };

/** What a request may name besides its query: the allow-list's ids, in allow-list mode. */
export type ParamNames = ReadonlySet<string>;
export const PARAMETER_NAMES: ParamNames = new Set(['query', 'variables', 'operationName', 'extensions']);
export const LISTED_PARAMETER_NAMES: ParamNames = new Set([...PARAMETER_NAMES, 'documentId', 'doc_id', 'id']);

/** The bodies read, by the media type `Content-Type` names first (anything else: a 415). */
const BODY_KINDS = [
  ['json', 'application/json'], ['graphql+json', 'application/graphql+json'], ['form', 'application/x-www-form-urlencoded'], ['graphql', 'application/graphql'],
] as const;
export type BodyKind = (typeof BODY_KINDS)[number][0];

/** What kind of body `Content-Type` says. */
export function bodyKind(header: string | undefined): BodyKind | undefined {
  const contentType = header?.split(',', 1)[0];
  for (const [kind, type] of BODY_KINDS) if (contentType === type || contentType?.startsWith(`${type};`) === true) return kind;
  return undefined;
}

/** A JSON body: one operation's parameters, a batch's (each, or its error), or why it is not read. */
export function jsonBody(body: Buffer): SentParams | Array<SentParams | GraphQLError> | GraphQLError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    // 400 whatever the `Accept`, the parser's words not quoted: a malformed request gets a 4xx even as JSON.
    return coded('BAD_REQUEST', 'POST body sent invalid JSON.');
  }
  if (Array.isArray(parsed)) return parsed.map((item: unknown) => (isObject(item) ? item : notAnObject(item)));
  if (parsed === null || typeof parsed !== 'object') return coded('BAD_REQUEST', `POST body is expected to be object but received ${parsed === null ? 'null' : typeof parsed}`);
  return parsed as SentParams;
}

/** A query string's or a form's parameters: the first value of each of `names` (empty is none), `variables` and `extensions` JSON. */
export function searchParams(search: string | URLSearchParams, names: ParamNames): SentParams | GraphQLError {
  const read = typeof search === 'string' ? new URLSearchParams(search) : search;
  const params: SentParams = {};
  for (const name of names) {
    const value = read.get(name);
    if (value === null || value === '') continue;
    if (name !== 'variables' && name !== 'extensions') params[name] = value;
    else {
      try {
        params[name] = JSON.parse(value);
      } catch {
        return coded('BAD_REQUEST', 'The variables or extensions parameter is not valid JSON');
      }
    }
  }
  return params;
}

/** A form's parameters (read as a query string's), or a GraphQL string's query. */
export function bodyParams(kind: 'form' | 'graphql', body: Buffer, names: ParamNames): SentParams | GraphQLError {
  const text = body.toString('utf8');
  return kind === 'form' ? searchParams(text, names) : { query: text };
}

/** `params` when they are a GraphQL request's: a string query, `variables` and `extensions` objects if any, no other name. */
export function checkedParams(params: SentParams, names: ParamNames): GraphQLParams | GraphQLError {
  for (const name in params) if (params[name] != null && !names.has(name)) return coded('BAD_REQUEST', `Unexpected parameter "${name}" in the request body.`);
  const { query, variables, extensions } = params;
  if (query == null) return coded('BAD_REQUEST', 'Must provide query string.', { spec: true, headers: ALLOW });
  if (typeof query !== 'string') return invalid(`Expected "query" param to be a string, but given ${typeOf(query)}.`);
  if (variables != null && !isObject(variables)) return invalid(`Expected "variables" param to be empty or an object, but given ${typeOf(variables)}.`);
  if (extensions != null && !isObject(extensions)) return invalid(`Expected "extensions" param to be empty or an object, but given ${typeOf(extensions)}.`);
  return params as GraphQLParams;
}

const ALLOW = { Allow: 'GET, POST' };

// Private: a batch's item that is no object.
function notAnObject(item: unknown): GraphQLError {
  return invalid(`Expected params to be an object but given ${typeOf(item)}.`);
}

function invalid(message: string): GraphQLError {
  return coded('BAD_REQUEST', message, { headers: ALLOW });
}

function isObject(value: unknown): value is SentParams {
  return typeOf(value) === 'object';
}

function typeOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}
