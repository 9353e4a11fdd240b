/**
 * The admission (edge/admission/admission.ts) as the WebSocket door applies it: the API key of a
 * connection, and the parameter limits and the allow-list of each operation, with the codes
 * every other door gives. What the door needs of the gateway is declared here
 * (`WebSocketGateway`), so that it imports nothing of the composition above it.
 */
import type { IncomingMessage } from 'node:http';
import type { GraphQLError } from 'graphql';
import type { SubscribePayload } from 'graphql-ws';
import type { YogaServerInstance } from 'graphql-yoga';
import type { Clock } from '../../base/clock.js';
import type { Config } from '../../base/config/config.js';
import type { GatewayContext } from '../../graph/context.js';
import type { GatewayMetrics } from '../../observability/metrics.js';
import type { AddressOf } from '../../request/client-address.js';
import type { Admission } from '../admission/admission.js';
import { keyRefusal, presentsKey, type HeaderReader } from '../admission/api-key.js';
import { isRefusal, refusalError } from '../admission/refusal.js';

/** What the WebSocket transport reads of the configuration. */
export type WebSocketConfig = Pick<Config, 'maxRequestBodyBytes' | 'webSocket'>;

/** What the WebSocket door needs of the gateway (app/gateway.ts makes it). */
export interface WebSocketGateway {
  yoga: YogaServerInstance<object, GatewayContext>;
  /** The one admission: the key, the rate limit's buckets (the ones HTTP requests use), the limits. */
  admission: Pick<Admission, 'key' | 'keys' | 'rate' | 'parameters' | 'persisted'>;
  /** Where a client without an API key comes from (`TRUST_PROXY`). */
  addressOf: AddressOf;
  metrics: Pick<GatewayMetrics, 'graphqlRequest'>;
  /** The gateway's clock: an operation's start and duration, on its monotonic face. */
  clock: Clock;
}

/** A connection's client (`key:<fingerprint>`, undefined without keys), or why it is refused. */
export type ConnectionVerdict = { client: string | undefined } | { refused: string };

/**
 * The key check of a connection: the key from the upgrade request's headers or from
 * `connectionParams` (a browser's WebSocket cannot set headers), named as over HTTP (`x-api-key`,
 * or `authorization: Bearer <key>`; in `connectionParams`, in any case).
 */
export function createConnectionCheck(admission: Pick<Admission, 'key' | 'keys'>): (request: IncomingMessage, connectionParams: unknown) => ConnectionVerdict {
  if (!admission.keys) return () => ({ client: undefined });
  return (request, connectionParams) => {
    const sources = [upgradeHeaders(request), paramsHeaders(connectionParams)];
    for (const headers of sources) {
      const keyed = admission.key(headers);
      if (!isRefusal(keyed)) return keyed;
    }
    return { refused: keyRefusal(sources.some(presentsKey)).message };
  };
}

/**
 * The document an operation runs, or its refusal: the parameter limits on what it sent, then in
 * allow-list mode the listed document its id names (`documentId`, `doc_id`, `id` or the hash; with
 * an empty `query`: graphql-ws requires the field), as yoga's path checks them.
 */
export function admittedQuery(payload: SubscribePayload, admission: Pick<Admission, 'parameters' | 'persisted'>): string | GraphQLError {
  const tooLarge = admission.parameters(payload.query, payload.variables);
  if (tooLarge !== undefined) return refusalError(tooLarge);
  const listed = admission.persisted(payload);
  if (listed === undefined) return payload.query;
  return isRefusal(listed) ? refusalError(listed) : listed.query;
}

/** The upgrade request's headers, as the key check reads them (a header given twice counts as none). */
export function upgradeHeaders(request: IncomingMessage): HeaderReader {
  return {
    get(name) {
      const value = request.headers[name];
      return typeof value === 'string' ? value : null;
    },
  };
}

// Private: `connectionParams` read as headers, names in any case.
function paramsHeaders(params: unknown): HeaderReader {
  const entries = params !== null && typeof params === 'object' ? Object.entries(params) : [];
  return {
    get(name) {
      for (const [key, value] of entries) if (key.toLowerCase() === name && typeof value === 'string') return value;
      return null;
    },
  };
}
