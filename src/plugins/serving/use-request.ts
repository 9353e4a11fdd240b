/**
 * yoga's door to the request object (request/request.ts): makes it around the whole request (so
 * first among the plugins but tracing), and notes on it what yoga's hooks see: whether it is
 * GraphQL, the operation, the codes of the answer's errors. Its id goes out in `x-request-id`.
 */
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Clock } from '../../base/clock.js';
import type { Logger } from '../../base/logger.js';
import { maskError } from '../../graph/mask-error.js';
import { REQUEST_ID_HEADER, currentRequest, requestIdFrom, runInRequest } from '../../request/current.js';
import { createRequest } from '../../request/request.js';
import { ROUTES } from '../../admission/routes.js';

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,99}$/;

export function useRequest(logger: Logger, clock: Clock): Plugin {
  const graphqlEndpoint = ROUTES.graphql;
  return {
    instrumentation: {
      request({ request }, serve) {
        return runInRequest(createRequest(requestIdFrom(request.headers.get(REQUEST_ID_HEADER)), logger, clock.monotonic()), serve);
      },
    },
    onRequest({ url }) {
      const request = currentRequest();
      if (request !== undefined) request.graphql = url.pathname === graphqlEndpoint;
    },
    onParams({ params }) {
      const request = currentRequest();
      const name = params.operationName;
      if (request !== undefined && typeof name === 'string' && GRAPHQL_NAME.test(name)) request.requestedOperation = name;
    },
    onExecute({ args }) {
      const request = currentRequest();
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
    onResultProcess({ result }) {
      const request = currentRequest();
      if (request === undefined || Symbol.asyncIterator in result) return;
      for (const one of Array.isArray(result) ? result : [result]) request.note(one);
    },
    onResponse({ response }) {
      const request = currentRequest();
      if (request !== undefined) response.headers.set(REQUEST_ID_HEADER, request.id);
    },
  };
}
