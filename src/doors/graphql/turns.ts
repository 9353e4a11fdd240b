/**
 * Executions start in the order their requests arrived, one per turn of the event loop: a
 * saturated Node server is not fair on its own (a kept-alive connection's next request can jump
 * ahead), and starting one per turn lets every request that arrived meanwhile join the queue
 * first. The queue orders starts; it never holds an execution back.
 */
export type Job = () => void;

export function createTurnQueue(): (job: Job) => void {
  const queue: Job[] = [];
  let head = 0;
  let scheduled = false;
  const next = (): void => {
    scheduled = false;
    const job = queue[head];
    queue[head++] = undefined as unknown as Job;
    if (head === queue.length) {
      queue.length = 0;
      head = 0;
    } else schedule();
    job?.();
  };
  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(next);
  };
  return (job) => {
    queue.push(job);
    schedule();
  };
}
