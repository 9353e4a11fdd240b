/**
 * The events a test subscriber has received, and waiting for the n-th of them: shared by the SSE
 * and WebSocket subscribers (sse.ts, websocket.ts).
 */
export interface EventLog<T> {
  /** Every event so far, in order. */
  readonly events: T[];
  add(event: T): void;
  /** Resolves with all events once `count` have arrived (at once if they have). */
  received(count: number): Promise<T[]>;
}

export function createEventLog<T>(): EventLog<T> {
  const events: T[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const wake = () => {
    for (const waiter of [...waiters]) {
      if (events.length < waiter.count) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  return {
    events,
    add(event) {
      events.push(event);
      wake();
    },
    received: (count) => new Promise((resolve) => {
      waiters.push({ count, resolve: () => resolve(events) });
      wake();
    }),
  };
}
