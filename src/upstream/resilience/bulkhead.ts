/**
 * At most `maxConcurrency` API calls in flight, the rest in a bounded first-come queue, so a
 * burst of cold requests cannot open hundreds of connections and overload fails fast. A queued
 * call whose caller aborts leaves the queue at once.
 */
import { UpstreamError, abortedByCaller } from '../errors.js';

export interface BulkheadOptions {
  /** Calls running at once, at most (1 or more). */
  maxConcurrency: number;
  /** Calls waiting for a free slot, at most (0: none wait). */
  maxQueue: number;
}

export interface Bulkhead {
  /** Runs `task` once a slot is free; rejects with `UPSTREAM_UNAVAILABLE` when the queue is full or `signal` aborts a wait. */
  run<T>(task: () => Promise<T>, signal: AbortSignal | undefined, path: string): Promise<T>;
  /** Calls running now. */
  readonly running: number;
  /** Calls waiting now. */
  readonly queued: number;
}

export function createBulkhead(options: BulkheadOptions): Bulkhead {
  let running = 0;
  // A Set keeps arrival order and lets an aborted call leave from the middle.
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
