/**
 * The response cache's way to the answers the replicas share (cache/redis-answers.ts), taken
 * after a miss in this process: concurrent misses of a key share one read, and each execution
 * asks at most once, so that the lean path, which asks before it executes, is not asked again
 * by the plugin's own hook when the same arguments execute.
 */
import type { ExecutionArgs } from 'graphql';
import type { SharedAnswer, SharedAnswers } from '../cache/redis-answers.js';
import { currentRequest } from '../request/record.js';

/**
 * The shared answer under a key, as `keep` kept it in this process; a hit is recorded on the
 * request's record. No promise (`undefined`) when there is no shared level, it is not in use,
 * or these arguments asked already.
 */
export type SharedLookUp<T> = (args: ExecutionArgs, key: string) => Promise<T | undefined> | undefined;

export function createSharedLookUp<T>(shared: SharedAnswers | undefined, keep: (key: string, answer: SharedAnswer) => T): SharedLookUp<T> {
  const asked = new WeakSet<ExecutionArgs>();
  const reading = new Map<string, Promise<T | undefined>>();
  return (args, key) => {
    if (shared === undefined || !shared.usable || asked.has(args)) return undefined;
    asked.add(args);
    let read = reading.get(key);
    if (read === undefined) {
      read = shared.read(key).then((answer) => answer && keep(key, answer)).finally(() => reading.delete(key));
      reading.set(key, read);
    }
    const record = currentRequest();
    return read.then((hit) => {
      if (hit !== undefined && record !== undefined) record.responseCache = 'hit';
      return hit;
    });
  };
}
