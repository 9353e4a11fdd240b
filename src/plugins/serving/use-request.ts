/**
 * Notes on the request object its door made (request/request.ts) what an operation run through
 * yoga's execute shows: its name, and the codes of errors in later parts of an answer in parts.
 */
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { maskError } from '../../graph/mask-error.js';
import { requestIn } from '../../request/request.js';

export function useRequest(): Plugin {
  return {
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
  };
}
