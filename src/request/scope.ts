/**
 * Each execution's scope: a signal that aborts at the deadline (`REQUEST_TIMEOUT_MS`) or when the
 * client leaves, so waiting loads stop at once; and the stale data and data age it served.
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
  /** Marks the answer as depending on the time it is made: not to be replayed. */
  readsTheTime(): void;
  /** Names what the answer shows: an entity (`site`, `S000001`) or a list (`sites`). */
  tag(kind: string, code?: string): void;
  /** Stops the deadline timer; called when execution is done. */
  dispose(): void;
}

export interface ScopeOptions {
  /** Told when the answer is unrepeatable, and what data it is built from. */
  request?: Pick<GatewayRequest, 'unrepeatable'> & Partial<Pick<GatewayRequest, 'tag'>>;
  /** Where the deadline counts from, on `clock`'s monotonic face. Default: now. */
  from?: number;
  /** The clock of `from` and of the deadline (monotonic face); the deadline's timer is real. */
  clock: Clock;
  /** The upstream budget's charge for each call the loads start; none: no budget. */
  charge?: () => void;
}

/** The scope of an execution whose deadline is `timeoutMs` after `from` (default now); its signal is made on first use. */
export function createRequestScope(
  clientSignal: () => AbortSignal | undefined, timeoutMs: number, options: ScopeOptions,
): RequestScope {
  const { clock } = options;
  return new Scope(clientSignal, timeoutMs, (options.from ?? clock.monotonic()) + timeoutMs, clock, options.request, options.charge);
}

// Private: a class, not a per-request object literal with a getter, which outlives the request in the young generation.
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

  private readonly clientGone = () => this.#controller?.abort(new Error('the client disconnected'));
}

// Private: inside an answer (status 200), not the registry's 408 for a request not received in time.
function requestTimeout(timeoutMs: number): GraphQLError {
  return coded('REQUEST_TIMEOUT', `The request did not complete within ${timeoutMs} ms`, { status: 200 });
}
