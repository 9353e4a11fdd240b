/**
 * A replica that has filled a key publishes it on one channel, waking every replica's local
 * waiters. Waiters also poll, so a missed announcement costs one poll interval.
 */
import type { EventEmitter } from 'node:events';

/** One waiter's interest in a key, from `watch` until `stop`. */
export interface Watch {
  /** `true` at the next announcement (or one since the last call), `false` after `ms`; rejects when `signal` aborts. */
  next(ms: number, signal?: AbortSignal): Promise<boolean>;
  stop(): void;
}

export interface Notices {
  /** Starts listening for announcements of `key` (a full Redis key). */
  watch(key: string): Watch;
}

interface Listener {
  heard: boolean;
  wake: (() => void) | undefined;
}

/** Announcements on `channel`, heard through `subscriber`'s `message` events. */
export function createNotices(subscriber: EventEmitter, channel: string): Notices {
  const listeners = new Map<string, Set<Listener>>();
  subscriber.on('message', (from: string, key: string) => {
    if (from !== channel) return;
    for (const listener of listeners.get(key) ?? []) {
      listener.heard = true;
      listener.wake?.();
    }
  });

  return {
    watch(key) {
      const listener: Listener = { heard: false, wake: undefined };
      const set = listeners.get(key) ?? new Set();
      set.add(listener);
      listeners.set(key, set);
      return {
        next: (ms, signal) => nextNotice(listener, ms, signal),
        stop() {
          set.delete(listener);
          if (set.size === 0 && listeners.get(key) === set) listeners.delete(key);
        },
      };
    },
  };
}

// Private: waits for the listener to hear its key, `ms` to pass, or `signal` to abort.
function nextNotice(listener: Listener, ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (listener.heard) {
    listener.heard = false;
    return Promise.resolve(true);
  }
  return new Promise((resolve, reject) => {
    const end = () => {
      clearTimeout(timer);
      listener.wake = undefined;
      signal?.removeEventListener('abort', abort);
    };
    const abort = () => {
      end();
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      end();
      resolve(false);
    }, Math.max(0, ms));
    listener.wake = () => {
      end();
      listener.heard = false;
      resolve(true);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}
