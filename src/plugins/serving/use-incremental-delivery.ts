/**
 * Incremental delivery (`@defer`, `@stream`) with graphql-yoga's own plugin. An operation that
 * would answer in parts to a client accepting neither `multipart/mixed` nor event streams is
 * refused before it runs (`NOT_ACCEPTABLE`, 406) rather than after costing
 * upstream calls; a directive whose `if` is false does not count. Errors in later parts are
 * masked as the first part's are, which yoga's masking does not reach.
 */
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import type { Plugin } from 'graphql-yoga';
import type { ErrorCode } from '../../base/errors.js';
import { coded } from '../../base/graph-errors.js';
import { maskError } from '../../graph/mask-error.js';
import { asksForParts as documentAsksForParts, runningAsksForParts } from '../../graph/incremental-document.js';
import type { RequestScope } from '../../request/scope.js';
import { encodingFor } from '../../doors/graphql/request.js';

export const NOT_ACCEPTABLE = 'NOT_ACCEPTABLE' satisfies ErrorCode;

/** Media types an answer in parts is sent as. */
const INCREMENTAL_MEDIA_TYPES = ['multipart/mixed', 'text/event-stream'];

type Mask = (error: Error, message: string) => Error;

export function useIncrementalDelivery(): Plugin<{ scope?: RequestScope; request?: Request }> {
  // yoga's own masking (it logs what it masks); ours when yoga has none to lend.
  let mask: Mask = maskError;
  let message = 'Unexpected error.';
  return {
    ...useDeferStream(),
    onYogaInit({ yoga }) {
      const options = (yoga as unknown as { maskedErrorsOpts?: { maskError: Mask; errorMessage: string } | null }).maskedErrorsOpts;
      if (options) ({ maskError: mask, errorMessage: message } = options);
    },
    onExecute({ args, setResultAndStopExecution }) {
      // Most documents never ask for parts (known once per document): no Accept read, no hook.
      if (!documentAsksForParts(args.document)) return undefined;
      const { request, scope } = args.contextValue;
      const refused = request !== undefined && encodingFor(request.headers.get('accept') ?? undefined, true, false) === undefined && runningAsksForParts(args);
      if (!refused) {
        return {
          onExecuteDone: () => ({
            onNext({ result, setResult }) {
              const masked = maskIncrementalErrors(result, (error) => mask(error, message));
              if (masked !== result) setResult(masked);
            },
          }),
        };
      }
      scope?.dispose();
      setResultAndStopExecution({
        errors: [
          coded(NOT_ACCEPTABLE, `This operation uses @defer or @stream and is answered in parts; send Accept: ${INCREMENTAL_MEDIA_TYPES.join(' or ')}`),
        ],
      });
      return undefined;
    },
  };
}

/** A part with the errors of its `incremental` entries masked (the same part when it has none). */
export function maskIncrementalErrors<T extends object>(part: T, mask: (error: Error) => Error): T {
  const { incremental } = part as { incremental?: Array<{ errors?: readonly Error[] }> };
  if (!incremental?.some((entry) => entry.errors?.length)) return part;
  return {
    ...part,
    incremental: incremental.map((entry) => (entry.errors?.length ? { ...entry, errors: entry.errors.map(mask) } : entry)),
  };
}
