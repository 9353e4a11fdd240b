/**
 * Answers written together, once per turn of the event loop, after every request that turn read:
 * writing to a sleeping client makes the kernel wake it on our CPU time, so one wake per turn is
 * cheaper than one per answer. An answer waits at most for the rest of its turn.
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
