/** After a local miss, the answers the replicas share: one read per key in flight, one ask per execution. */
import type { ExecutionArgs } from 'graphql';
import type { SharedAnswer, SharedAnswers } from '../cache/redis-answers.js';
import type { GatewayRequest } from '../request/request.js';

/** The shared answer under a key, as `keep` kept it; `undefined` when not in use or asked already. */
export type SharedLookUp<T> = (args: ExecutionArgs, key: string, request: GatewayRequest | undefined) => Promise<T | undefined> | undefined;

export function createSharedLookUp<T>(shared: SharedAnswers | undefined, keep: (key: string, answer: SharedAnswer) => T): SharedLookUp<T> {
  const asked = new WeakSet<ExecutionArgs>();
  const reading = new Map<string, Promise<T | undefined>>();
  return (args, key, request) => {
    if (shared === undefined || !shared.usable || asked.has(args)) return undefined;
    asked.add(args);
    let read = reading.get(key);
    if (read === undefined) {
      read = shared.read(key).then((answer) => answer && keep(key, answer)).finally(() => reading.delete(key));
      reading.set(key, read);
    }
    return read.then((hit) => {
      if (hit !== undefined && request !== undefined) request.responseCache = 'hit';
      return hit;
    });
  };
}
