/**
 * The one per-request object: who asked (id, logger, client), what the request ran, and what
 * happened while it ran (upstream calls, cache lookups, error codes, the data's expiry). The
 * door that receives a request makes it (plugins/serving/use-request.ts for yoga's path,
 * edge/lean/lean-path.ts, edge/ws/operations.ts) and request/record.ts carries it through the
 * async work done on its behalf; the GraphQL context holds it too (graph/context.ts).
 *
 * It answers, itself, whether its answer may be stored and until when (`storable`): from its own
 * state and the result it is given, so that no plugin has to have noted the result's errors
 * first, and no answer is stored because an observer was not wired or ran in another order.
 */
import { infoLine, type Logger } from '../base/logger.js';
import { codeOf } from '../base/errors.js';
import type { LookupResult } from '../cache/cache.js';
import { createTags, type Tags } from './tags.js';

/** A result, as far as storing it goes: its errors. */
export interface ResultErrors {
  errors?: readonly unknown[] | undefined;
}

export interface GatewayRequest {
  /** The request id: the client's valid `x-request-id`, or a generated UUID. */
  readonly id: string;
  /** When the request arrived, on the gateway clock's monotonic face (base/clock.ts), in ms: its deadline (`REQUEST_TIMEOUT_MS`) counts from it. */
  readonly startedAt: number;
  /** A child logger whose lines carry `requestId`. */
  readonly logger: Logger;
  /** Writes the request's own line (info), as `logger` would, without making a child logger for it. */
  logLine(fields: Record<string, unknown>, message: string): void;
  /** A GraphQL request (its path is the GraphQL endpoint, and it is not the GraphiQL page). */
  graphql: boolean;
  /** Who the client is, once an API key was accepted: `key:<fingerprint>`. */
  client: string | undefined;
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
  /**
   * When the first of the data this request read stops being fresh (the shared cache's clock, ms);
   * `-Infinity` once the answer is true only when made (`unrepeatable`).
   */
  dataExpiresAt: number;
  /** Whether the whole answer came from the response cache (`hit`) or had to be made (`miss`). */
  responseCache: 'hit' | 'miss' | undefined;
  /** `extensions.code` of every error in the response. */
  readonly errorCodes: Set<string>;
  /** Adds the codes of a (masked) result's errors. */
  note(result: ResultErrors): void;
  /** A shared-cache lookup made for this request, and when the data it served stops being fresh. */
  lookedUp(result: LookupResult, expiresAt: number): void;
  /** The answer reads the time now, states its data's age or comes in parts: never to be replayed. */
  unrepeatable(): void;
  /** Names upstream data the answer is built from (`site:S000001`, `sites`: request/tags.ts). */
  tag(kind: string, code?: string): void;
  /** The answer's tags, bounded (request/tags.ts): its `Surrogate-Key`, and what a purge finds it by. */
  tags(): readonly string[];
  /** Whether the answer is one operation, with no error (noted, or in `result`) and nothing stale. */
  whole(result?: ResultErrors): boolean;
  /**
   * Whether the answer (`result`, when the caller has it) may be stored, and until when (the
   * shared cache's clock, ms): a whole answer made of data whose freshness is known.
   */
  storable(result?: ResultErrors): { until: number } | undefined;
}

const NO_TAGS: readonly string[] = Object.freeze([]);

/** The object of a request that just arrived, at `startedAt` (its door reads the gateway's clock). */
export function createRequest(id: string, logger: Logger, startedAt: number): GatewayRequest {
  return new OneRequest(id, logger, startedAt);
}

// Private: a class, not an object literal with a getter: such a literal, made per request, outlived
// it in the young generation (request/scope.ts's Scope, where it was measured).
class OneRequest implements GatewayRequest {
  graphql = false;
  client: string | undefined = undefined;
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
  #tags: Tags | undefined;
  // The child logger is made when first used: most requests log one line (logLine), or none.
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
