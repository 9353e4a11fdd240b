/**
 * The one per-request object: who asked, what it ran, and what happened meanwhile. Each door
 * makes it; it decides itself whether its answer may be stored, so no plugin order can get that wrong.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { infoLine, type Logger } from '../base/logger.js';
import { codeOf, type Refusal } from '../base/errors.js';
import type { LookupResult } from '../cache/cache.js';
import type { Span } from '@opentelemetry/api';
import { createTags, type Tags } from './tags.js';
import type { ResultErrors, StoreAnswer, StoredResponse } from './stored.js';

export type { ResultErrors } from './stored.js';

/** Whether the client's rate-limit bucket had a token, and else the seconds to wait. */
export type RateVerdict = { allowed: true } | { allowed: false; retryAfterS: number };

export interface GatewayRequest {
  /** The request id: the client's valid `x-request-id`, or a generated UUID. */
  readonly id: string;
  /** Arrival, on the gateway clock's monotonic face, in ms: the request's deadline counts from it. */
  readonly startedAt: number;
  /** A child logger whose lines carry `requestId`. */
  readonly logger: Logger;
  /** Writes the request's own line (info), as `logger` would, without making a child logger for it. */
  logLine(fields: Record<string, unknown>, message: string): void;
  /** A GraphQL request (the GraphQL endpoint, not the GraphiQL page). */
  graphql: boolean;
  /** Who the client is, once an API key was accepted: `key:<fingerprint>`. */
  client: string | undefined;
  /** Its API key was checked from its headers before its body was read (admission/before-body.ts). */
  keyChecked: boolean;
  /** Its API key's refusal, kept by the admission before its body was read: the step that answers reads it. */
  keyRefused: Refusal | undefined;
  /** Why the gateway refused the request before GraphQL ran: `unauthenticated`, `rate_limited`. */
  rejectedAs: string | undefined;
  /** Names of the operations executed (one, or several in a batch); `anonymous` for unnamed ones. */
  readonly operations: string[];
  /** The operation name the client sent (`operationName`), when it is a valid GraphQL name. */
  requestedOperation: string | undefined;
  /** API call attempts sent upstream on this request's behalf (retries included). */
  upstreamCalls: number;
  cacheHits: number;
  cacheMisses: number;
  cacheStale: number;
  /** When the first data it read stops being fresh (shared cache clock, ms); `-Infinity` if `unrepeatable`. */
  dataExpiresAt: number;
  /** Whether the whole answer came from the response cache (`hit`) or had to be made (`miss`). */
  responseCache: 'hit' | 'miss' | undefined;
  /** `extensions.code` of every error in the response. */
  readonly errorCodes: Set<string>;
  /** The rate-limit verdict, taken once by the first step that asks (a promise while the fleet decides). */
  verdict: RateVerdict | Promise<RateVerdict> | undefined;
  /** Never looked up in the response cache: not the GraphQL path, an ambiguous request, a batch. */
  uncacheable: boolean;
  /** The stored answer it is served from the response cache, if it is. */
  served: StoredResponse | undefined;
  /** After a miss: how to store the answer it is about to get. */
  toStore: StoreAnswer | undefined;
  /** The stored answer its own answer was just stored as. */
  made: StoredResponse | undefined;
  /** Its result when one whole result (no batch, no parts): what storing and caching ask of its errors. */
  result: ResultErrors | undefined;
  /** Answers in parts still being sent, and what to do when the last one ends. */
  streams: { open: number; ended: (() => void) | undefined } | undefined;
  /** The upstream calls its operations are estimated at so far (a batch's share one budget). */
  estimatedCalls: number;
  /** Its hard stop on upstream calls while running, made by the first call (graph/budget/charges.ts). */
  charge: (() => void) | undefined;
  /** Its HTTP span, when tracing is on. */
  span: Span | undefined;
  /** Adds the codes of a (masked) result's errors. */
  note(result: ResultErrors): void;
  /** Lets go of what its answer held (result, stored answers, the document to store, the span), once the answer is sent. */
  release(): void;
  /** A shared-cache lookup made for this request, and when the data it served stops being fresh. */
  lookedUp(result: LookupResult, expiresAt: number): void;
  /** The answer reads the time now, states its data's age or comes in parts: never to be replayed. */
  unrepeatable(): void;
  /** Names upstream data the answer is built from (`site:S000001`, `sites`). */
  tag(kind: string, code?: string): void;
  /** The answer's bounded tags: its `Surrogate-Key`, and what a purge finds it by. */
  tags(): readonly string[];
  /** Whether the answer is one operation, with no error (noted, or in `result`) and nothing stale. */
  whole(result?: ResultErrors): boolean;
  /** Whether the answer may be stored, and until when (shared cache clock, ms). */
  storable(result?: ResultErrors): { until: number } | undefined;
}

const NO_TAGS: readonly string[] = Object.freeze([]);

/** The object of a request that just arrived, at `startedAt` (its door reads the gateway's clock). */
export function createRequest(id: string, logger: Logger, startedAt: number): GatewayRequest {
  return new OneRequest(id, logger, startedAt);
}

// Private: a class, not a per-request object literal with a getter, which outlives the request in the young generation.
class OneRequest implements GatewayRequest {
  graphql = false;
  client: string | undefined = undefined;
  keyChecked = false;
  keyRefused: Refusal | undefined = undefined;
  rejectedAs: string | undefined = undefined;
  readonly operations: string[] = [];
  requestedOperation: string | undefined = undefined;
  upstreamCalls = 0;
  cacheHits = 0;
  cacheMisses = 0;
  cacheStale = 0;
  dataExpiresAt = Number.POSITIVE_INFINITY;
  responseCache: 'hit' | 'miss' | undefined = undefined;
  readonly errorCodes = new Set<string>();
  verdict: RateVerdict | Promise<RateVerdict> | undefined = undefined;
  uncacheable = false;
  served: StoredResponse | undefined = undefined;
  toStore: StoreAnswer | undefined = undefined;
  made: StoredResponse | undefined = undefined;
  result: ResultErrors | undefined = undefined;
  streams: { open: number; ended: (() => void) | undefined } | undefined = undefined;
  estimatedCalls = 0;
  charge: (() => void) | undefined = undefined;
  span: Span | undefined = undefined;
  #tags: Tags | undefined;
  #child: Logger | undefined;

  constructor(
    readonly id: string,
    private readonly root: Logger,
    readonly startedAt: number,
  ) {}

  get logger(): Logger {
    return (this.#child ??= this.root.child({ requestId: this.id }));
  }

  logLine(fields: Record<string, unknown>, message: string): void {
    infoLine(this.root)({ requestId: this.id }, fields, message);
  }

  note(result: ResultErrors): void {
    for (const error of result.errors ?? []) this.errorCodes.add(codeOf(error));
  }

  release(): void {
    this.result = this.toStore = this.served = this.made = this.span = this.streams = undefined;
  }

  lookedUp(result: LookupResult, expiresAt: number): void {
    this.dataExpiresAt = Math.min(this.dataExpiresAt, expiresAt);
    if (result === 'hit') this.cacheHits += 1;
    else if (result === 'miss') this.cacheMisses += 1;
    else this.cacheStale += 1;
  }

  unrepeatable(): void {
    this.dataExpiresAt = Number.NEGATIVE_INFINITY;
  }

  tag(kind: string, code?: string): void {
    (this.#tags ??= createTags()).add(kind, code);
  }

  tags(): readonly string[] {
    return this.#tags?.list() ?? NO_TAGS;
  }

  whole(result?: ResultErrors): boolean {
    const errors = this.errorCodes.size + (result?.errors?.length ?? 0);
    return this.operations.length === 1 && errors === 0 && this.cacheStale === 0;
  }

  storable(result?: ResultErrors): { until: number } | undefined {
    return this.whole(result) && Number.isFinite(this.dataExpiresAt) ? { until: this.dataExpiresAt } : undefined;
  }
}

/** A name GraphQL allows, at most 100 characters: one a client sent is logged only if it is one. */
const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,99}$/;

/** Notes the operation name a client asked for (its log line's operation until one runs). */
export function nameRequested(request: GatewayRequest, name: unknown): void {
  if (typeof name === 'string' && GRAPHQL_NAME.test(name)) request.requestedOperation = name;
}

/** The request object its door handed on in `context` (yoga's server context, or a GraphQL context made from it). */
export function requestIn(context: unknown): GatewayRequest | undefined {
  return (context as { gatewayRequest?: GatewayRequest } | undefined)?.gatewayRequest;
}

/** What a door hands yoga with each request (its server context): the request object it made. */
export interface DoorContext {
  gatewayRequest?: GatewayRequest;
  /** The HTTP door's Node request and response, as yoga's own adapter would hand them on. */
  req?: IncomingMessage;
  res?: ServerResponse;
}
