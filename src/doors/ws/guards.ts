/**
 * The admission as the WebSocket door applies it (a connection's API key; each operation's
 * parameter limits and allow-list), with every other door's codes. `WebSocketGateway` declares
 * what the door needs, so it imports nothing of the composition above it.
 */
import type { IncomingMessage } from 'node:http';
import type { GraphQLError } from 'graphql';
import type { SubscribePayload } from 'graphql-ws';
import type { YogaServerInstance } from 'graphql-yoga';
import type { Clock } from '../../base/clock.js';
import type { Config } from '../../base/config/config.js';
import type { DoorContext } from '../../request/request.js';
import type { GatewayContext } from '../../graph/context.js';
import type { GatewayMetrics } from '../../observability/metrics.js';
import type { AddressOf } from '../../request/client-address.js';
import type { Admission } from '../../admission/admission.js';
import { keyRefusal, nodeHeaders, presentsKey, type HeaderReader } from '../../admission/api-key.js';
import { isRefusal, refusalError } from '../../admission/refusal.js';

export type WebSocketConfig = Pick<Config, 'maxRequestBodyBytes' | 'webSocket'>;

export interface WebSocketGateway {
  yoga: YogaServerInstance<DoorContext, GatewayContext>;
  /** The one admission, with the same rate-limit buckets as HTTP. */
  admission: Pick<Admission, 'key' | 'keys' | 'rate' | 'parameters' | 'persisted'>;
  addressOf: AddressOf;
  metrics: Pick<GatewayMetrics, 'graphqlRequest'>;
  /** The gateway's clock (an operation's start and duration). */
  clock: Clock;
}

/** A connection's client (`key:<fingerprint>`, undefined without keys), or why it is refused. */
export type ConnectionVerdict = { client: string | undefined } | { refused: string };

/** The key check of a connection: from the upgrade's headers or `connectionParams` (browsers cannot set headers). */
export function createConnectionCheck(admission: Pick<Admission, 'key' | 'keys'>): (request: IncomingMessage, connectionParams: unknown) => ConnectionVerdict {
  if (!admission.keys) return () => ({ client: undefined });
  return (request, connectionParams) => {
    const sources = [nodeHeaders(request), paramsHeaders(connectionParams)];
    for (const headers of sources) {
      const keyed = admission.key(headers);
      if (!isRefusal(keyed)) return keyed;
    }
    return { refused: keyRefusal(sources.some(presentsKey)).message };
  };
}

/** The document an operation runs, or its refusal: the parameter limits, then the allow-list. */
export function admittedQuery(payload: SubscribePayload, admission: Pick<Admission, 'parameters' | 'persisted'>): string | GraphQLError {
  const tooLarge = admission.parameters(payload.query, payload.variables);
  if (tooLarge !== undefined) return refusalError(tooLarge);
  const listed = admission.persisted(payload);
  if (listed === undefined) return payload.query;
  return isRefusal(listed) ? refusalError(listed) : listed.query;
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
