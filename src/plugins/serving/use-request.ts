/**
 * Notes on the request object its door made (request/request.ts) what yoga's hooks see: whether
 * it is GraphQL, the operation, its whole result and the codes of its errors. Its id goes out in
 * `x-request-id`. Reached without a door (yoga called directly), it makes one.
 */
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Clock } from '../../base/clock.js';
import type { Logger } from '../../base/logger.js';
import { maskError } from '../../graph/mask-error.js';
import { REQUEST_ID_HEADER, requestIdFrom } from '../../request/current.js';
import { createRequest, nameRequested, requestIn, type GatewayRequest } from '../../request/request.js';
import { ROUTES } from '../../admission/routes.js';

export function useRequest(logger: Logger, clock: Clock): Plugin {
  const graphqlEndpoint = ROUTES.graphql;
  return {
    onRequest({ request: fetched, url, serverContext }) {
      const context = serverContext as { gatewayRequest?: GatewayRequest };
      const request = (context.gatewayRequest ??= createRequest(requestIdFrom(fetched.headers.get(REQUEST_ID_HEADER)), logger, clock.monotonic()));
      request.graphql = url.pathname === graphqlEndpoint;
    },
    onParams({ params, context }) {
      const request = requestIn(context);
      if (request !== undefined) nameRequested(request, params.operationName);
    },
    onExecute({ args }) {
      const request = requestIn(args.contextValue);
      if (request === undefined) return undefined;
      request.operations.push(getOperationAST(args.document, args.operationName)?.name?.value ?? 'anonymous');
      return {
        onExecuteDone({ result }) {
          if (!(Symbol.asyncIterator in result)) return undefined;
          // An answer in parts is never replayed. Its parts reach this hook unmasked, with the codes the client gets.
          request.unrepeatable();
          return {
            onNext({ result: part }) {
              for (const error of part.errors ?? []) request.note({ errors: [maskError(error, '')] });
              for (const increment of 'incremental' in part ? part.incremental ?? [] : []) {
                for (const error of increment.errors ?? []) request.note({ errors: [maskError(error, '')] });
              }
            },
          };
        },
      };
    },
    onResultProcess({ result, serverContext }) {
      const request = requestIn(serverContext);
      if (request === undefined || Symbol.asyncIterator in result) return;
      if (!Array.isArray(result)) request.result = result;
      for (const one of Array.isArray(result) ? result : [result]) request.note(one);
    },
    onResponse({ response, serverContext }) {
      const request = requestIn(serverContext);
      if (request !== undefined) response.headers.set(REQUEST_ID_HEADER, request.id);
    },
  };
}
