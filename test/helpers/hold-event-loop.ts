/**
 * A busy replica, on demand: holds this process's event loop (no timer fires, no socket is read)
 * right after a chosen write to a socket, as a large answer or a saturated core would. What was
 * written (a Redis command) is answered meanwhile; the answer waits unread until the loop is free,
 * after the command's timer is due.
 */
import { Socket } from 'node:net';

/** Keeps the event loop busy for `ms`. */
export function holdEventLoop(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy on purpose
  }
}

/**
 * Holds the event loop for `ms` just after the first socket write whose data `matches`; returns
 * what undoes the hook (call it in a `finally`).
 */
export function holdAfterWriting(matches: (data: string) => boolean, ms: number): () => void {
  const write = Socket.prototype.write;
  let held = false;
  Socket.prototype.write = function (this: Socket, ...args: Parameters<Socket['write']>) {
    const written = write.apply(this, args);
    if (!held && matches(String(args[0]))) {
      held = true;
      // Two ticks on: after the writer's own next-tick work (connection.ts arms a command's bound
      // then), before this turn's I/O, in which Redis's answer would be read.
      process.nextTick(() => process.nextTick(() => holdEventLoop(ms)));
    }
    return written;
  } as Socket['write'];
  return () => {
    Socket.prototype.write = write;
  };
}
