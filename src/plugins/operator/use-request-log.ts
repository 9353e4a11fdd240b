/**
 * Counts the answers in parts a request has open, so that its log line and request metrics
 * (request/log.ts) are written once its last part is sent or the client left.
 */
import type { Plugin } from 'graphql-yoga';
import { requestIn } from '../../request/request.js';

export function useRequestLog(): Plugin {
  return {
    onExecute({ args }) {
      const request = requestIn(args.contextValue);
      return {
        onExecuteDone({ result }) {
          if (request === undefined || !(Symbol.asyncIterator in result)) return undefined;
          // An answer in parts (@defer, @stream): its line is written after the last part.
          const stream = (request.streams ??= { open: 0, ended: undefined });
          stream.open += 1;
          return {
            onEnd() {
              stream.open -= 1;
              if (stream.open === 0) stream.ended?.();
            },
          };
        },
      };
    },
  };
}
