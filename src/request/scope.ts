/**
 * Each execution's scope (the plugin that ends it: plugins/serving/use-request-scope.ts): one
 * signal that aborts when the deadline (`REQUEST_TIMEOUT_MS`) passes or the client disconnects,
 * and the stale data served to it. A subscription's events each get a new one (graph/context.ts),
 * so it is the execution's, not the request's (request/request.ts), which it tells itself when the
 * answer is true only when made: nothing between them has to pass it on. Loads waiting on the signal stop at once, so the response carries what has resolved
 * plus coded errors; upstream calls nobody else waits for are cancelled (cache/in-flight.ts).
 * What the answer shows is named on it (graph/resolvers/entity-tags.ts, and the pages the loads
 * read), and it passes the names to the request (its tags: request/tags.ts). Stale data served because a refresh failed is listed in `extensions.stale`; answers that used
 * the catalog index say how old its data was in `extensions.dataAge` (whole seconds, the oldest).
 */
import type { Clock } from '../base/clock.js';
import { setMaxListeners } from 'node:events';
import type { GraphQLError } from 'graphql';
import type { StaleServe } from '../cache/cache.js';
import type { SourceScope } from '../data/sources.js';
import { coded } from '../base/graph-errors.js';
import type { GatewayRequest } from './request.js';

export interface RequestScope extends SourceScope {
  signal: AbortSignal;
  onStale(serve: StaleServe): void;
  onDataAge(ageSeconds: number): void;
  /** Stale data served to this request, one entry per key. */
  readonly stale: StaleServe[];
  /** Age of the oldest catalog-index data served to this request, in whole seconds, if any. */
  readonly dataAge: number | undefined;
  /** Time left before the deadline, in ms (negative once it passed). */
  timeLeftMs(): number;
  /** Marks the answer as depending on the time it is made (`isOpen` without `at`): not to be replayed. */
  readsTheTime(): void;
  /** Names what the answer shows: an entity (`site`, `S000001`) or a list (`sites`) (request/tags.ts). */
  tag(kind: string, code?: string): void;
  /** Stops the deadline timer; called when execution is done. */
  dispose(): void;
}

export interface ScopeOptions {
  /** Told when the answer reads the time or states its data's age, and what data it is built from. */
  request?: Pick<GatewayRequest, 'unrepeatable'> & Partial<Pick<GatewayRequest, 'tag'>>;
  /** Where the deadline counts from, on `clock`'s monotonic face. Default: now. */
  from?: number;
  /** The clock of `from` and of the deadline (its monotonic face); the deadline's timer is a real one either way. */
  clock: Clock;
  /** The upstream budget's charge for each call the loads start (graph/budget/charges.ts); none: no budget. */
  charge?: () => void;
}

/**
 * The scope of an execution for `request` (told when its answer reads the time or states its
 * data's age: not to be replayed), whose deadline is `timeoutMs` after `from`: the request's
 * arrival (`startedAt`) for its own operations, so that a batch shares one deadline; now, by
 * default, for a subscription's next event. Its signal, the deadline timer and the listener on the
 * client's signal are made when a load first waits on them: a request served from cached data
 * never does, and an AbortController, a timer and an event listener per request were a tenth of
 * the executed path's CPU (`node --cpu-prof`).
 */
export function createRequestScope(
  clientSignal: () => AbortSignal | undefined, timeoutMs: number, options: ScopeOptions,
): RequestScope {
  const { clock } = options;
  return new Scope(clientSignal, timeoutMs, (options.from ?? clock.monotonic()) + timeoutMs, clock, options.request, options.charge);
}

// Private: a class, not an object literal: a literal with a getter, made per request, left
// megabytes behind at every young-generation collection (`--trace-gc-nvp`: 4.4 MB survived each
// scavenge on a response-cache hit, pauses of 9 ms) where a class instance leaves none.
class Scope implements RequestScope {
  #controller: AbortController | undefined;
  #timer: NodeJS.Timeout | undefined;
  #client: AbortSignal | undefined;
  #stale: Map<string, StaleServe> | undefined;
  #dataAge: number | undefined;
  #disposed = false;

  constructor(
    private readonly clientSignal: () => AbortSignal | undefined,
    private readonly timeoutMs: number,
    private readonly deadline: number,
    private readonly clock: Clock,
    private readonly request: ScopeOptions['request'],
    private readonly charge: (() => void) | undefined,
  ) {}

  chargeUpstreamCall(): void {
    this.charge?.();
  }

  get signal(): AbortSignal {
    if (this.#controller !== undefined) return this.#controller.signal;
    const controller = (this.#controller = new AbortController());
    // Every load the request waits for listens on this one signal: many listeners are expected.
    setMaxListeners(0, controller.signal);
    const left = this.deadline - this.clock.monotonic();
    if (left <= 0) controller.abort(requestTimeout(this.timeoutMs));
    else if (!this.#disposed) {
      this.#timer = setTimeout(() => controller.abort(requestTimeout(this.timeoutMs)), left);
      this.#timer.unref();
    }
    const client = (this.#client = this.clientSignal());
    if (client?.aborted) this.clientGone();
    else if (!this.#disposed) client?.addEventListener('abort', this.clientGone, { once: true });
    return controller.signal;
  }

  get stale(): StaleServe[] {
    return this.#stale === undefined ? [] : [...this.#stale.values()];
  }

  get dataAge(): number | undefined {
    return this.#dataAge;
  }

  onStale(serve: StaleServe): void {
    (this.#stale ??= new Map()).set(serve.key, serve);
  }

  onDataAge(ageSeconds: number): void {
    this.#dataAge = Math.max(this.#dataAge ?? 0, ageSeconds);
    this.request?.unrepeatable();
  }

  timeLeftMs(): number {
    return this.deadline - this.clock.monotonic();
  }

  readsTheTime(): void {
    this.request?.unrepeatable();
  }

  tag(kind: string, code?: string): void {
    this.request?.tag?.(kind, code);
  }

  dispose(): void {
    this.#disposed = true;
    clearTimeout(this.#timer);
    this.#client?.removeEventListener('abort', this.clientGone);
  }

  // An arrow, so that it is the same listener to add and to remove.
  private readonly clientGone = () => this.#controller?.abort(new Error('the client disconnected'));
}

// Private: inside an answer (status 200), not the registry's 408 for a request not received in time.
function requestTimeout(timeoutMs: number): GraphQLError {
  return coded('REQUEST_TIMEOUT', `The request did not complete within ${timeoutMs} ms`, { status: 200 });
}
