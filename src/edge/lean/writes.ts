/**
 * Answers written together, once per turn of the event loop, after every request that turn read.
 *
 * Writing an answer on a socket whose client sleeps makes the kernel wake the client, on the
 * writer's CPU time. Measured with a bare `node:http` server on this project's bench machine (a
 * VM, client on the other core; README "Performance"): a write costs 7 µs while the client is
 * busy and 27 µs when each answer comes 60 µs after the last, because the client slept in between.
 * Writing a turn's answers back to back wakes the client once for all of them: the same server
 * then served 11.7k req/s instead of 9.7k. An answer waits at most for the rest of its turn's
 * requests; alone, it is written at once after its own.
 */
import { setImmediate } from 'node:timers';

export type Write = () => void;

/** A function that queues a write for the end of this turn of the event loop. */
export function createWriteBatch(): (write: Write) => void {
  let queue: Write[] = [];
  const flush = (): void => {
    const writes = queue;
    queue = [];
    for (const write of writes) write();
  };
  return (write) => {
    if (queue.push(write) === 1) setImmediate(flush);
  };
}
