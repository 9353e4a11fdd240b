/**
 * How long a Redis command may take, told apart from how long this process took to look: a
 * replica whose event loop is held up must not take its own lag for a Redis outage.
 */

/**
 * `command`, rejected when it has not answered within `ms` as far as this process can see: a busy
 * replica (a large answer, a core shared with other work) must not take its own lag for a Redis
 * outage, then go alone (a second token request, a second load). Two things see to it:
 * - The bound starts on the next tick, once ioredis has sent the commands of this one (it sends
 *   them together then): work that holds up this tick does not count against Redis.
 * - The bound's timer runs at the start of an event-loop turn, before that turn reads the sockets,
 *   so Redis's answer may be waiting unread: the verdict waits for `setImmediate`, which runs after
 *   the turn's I/O, and an answer that has arrived is read first.
 * It never waits longer for an answer that has not arrived: an earlier design extended the bound
 * while the loop lagged, and requests piled up behind Redis on a busy replica.
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
