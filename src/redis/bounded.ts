/** A bound on a Redis command that a replica's own event-loop lag does not count against Redis. */

/**
 * `command`, rejected when it has not answered within `ms`. The bound starts on the next tick,
 * once ioredis has sent this tick's commands, and its verdict waits for `setImmediate`, so an
 * answer already on the socket is read first. It never waits longer for an answer not arrived.
 */
export function bounded<T>(command: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      done();
    };
    const giveUp = () => settle(() => reject(new Error(`Redis did not answer within ${ms} ms`)));
    process.nextTick(() => {
      if (!settled) timer = setTimeout(() => setImmediate(giveUp), ms);
    });
    command.then((value) => settle(() => resolve(value)), (error: unknown) => settle(() => reject(error as Error)));
  });
}
