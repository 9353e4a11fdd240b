/**
 * Ends every GraphQL request on yoga's path with its log line and request metrics (written by
 * request/log.ts); an answer in parts ends once its last part is sent or the client left.
 * Nothing else depends on it.
 */
import type { Plugin } from 'graphql-yoga';
import type { EndRequest } from '../../request/log.js';
import { requestIn } from '../../request/request.js';

export function useRequestLog(end: EndRequest): Plugin {
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
    onResponse({ response, serverContext }) {
      const request = requestIn(serverContext);
      if (request === undefined) return;
      if (!request.graphql) return;
      const stream = request.streams;
      if (stream !== undefined && stream.open > 0) stream.ended = () => end(request, response.status);
      else end(request, response.status);
    },
  };
}
