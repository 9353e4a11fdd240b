/**
 * The bulkhead: at most `maxConcurrency` API calls in flight, the rest waiting in a bounded
 * queue (first come, first served). It keeps a burst of cold GraphQL requests from opening
 * hundreds of upstream connections, and the bounded queue turns overload into fast failures
 * instead of unbounded memory and latency.
 *
 * An own one rather than cockatiel's `bulkhead`: in cockatiel 3.2.1 a queued call whose caller
 * aborts stays in the queue, holding its place, until its turn comes.
 */
import { UpstreamError, abortedByCaller } from '../errors.js';

export interface BulkheadOptions {
  /** Calls running at once, at most (1 or more). */
  maxConcurrency: number;
  /** Calls waiting for a free slot, at most (0: none wait). */
  maxQueue: number;
}

export interface Bulkhead {
  /**
   * Runs `task` as soon as a slot is free and settles as it does. Rejects with
   * `UPSTREAM_UNAVAILABLE` at once when the queue is full, and as soon as `signal` aborts while
   * the call waits (the call then leaves the queue; a running task is the task's business).
   */
  run<T>(task: () => Promise<T>, signal: AbortSignal | undefined, path: string): Promise<T>;
  /** Calls running now. */
  readonly running: number;
  /** Calls waiting now. */
  readonly queued: number;
}

export function createBulkhead(options: BulkheadOptions): Bulkhead {
  let running = 0;
  // Each entry starts one waiting call; a Set keeps arrival order and lets an aborted call leave
  // from the middle.
  const queue = new Set<() => void>();

  // Private: a finished call hands its slot straight to the longest-waiting one.
  function release(): void {
    const next = queue.values().next();
    if (next.done === true) {
      running -= 1;
      return;
    }
    queue.delete(next.value);
    next.value();
  }

  async function runInSlot<T>(task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } finally {
      release();
    }
  }

  return {
    run(task, signal, path) {
      if (signal?.aborted) return Promise.reject(abortedByCaller(path));
      if (running < options.maxConcurrency) {
        running += 1;
        return runInSlot(task);
      }
      if (queue.size >= options.maxQueue) return Promise.reject(queueFull(path, options));
      return new Promise((resolve, reject) => {
        const onAbort = (): void => {
          queue.delete(start);
          reject(abortedByCaller(path));
        };
        const start = (): void => {
          signal?.removeEventListener('abort', onAbort);
          runInSlot(task).then(resolve, reject);
        };
        queue.add(start);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    get running() {
      return running;
    },
    get queued() {
      return queue.size;
    },
  };
}

function queueFull(path: string, options: BulkheadOptions): UpstreamError {
  return new UpstreamError('UPSTREAM_UNAVAILABLE',
    `GET ${path} not sent: too many upstream calls waiting (${options.maxConcurrency} in flight, ${options.maxQueue} queued)`,
    { path, reason: 'queue_full' });
}
