/**
 * A batch on the lean path (`BATCHING_LIMIT`): a JSON array of queries answered as one array, as
 * yoga answers it. Every operation is read, parsed and validated before the batch's n − 1 more
 * rate-limit tokens are taken, so that a batch this does not serve goes to yoga uncounted; a
 * batch is neither looked up nor stored in the response cache.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getOperationAST, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLError, type GraphQLSchema } from 'graphql';
import type { GatewayRequest } from '../../request/request.js';
import type { RateLimit } from '../../admission/rate-limit.js';
import { isRefusal, refusalError, type Refusal } from '../../admission/refusal.js';
import type { PersistedQueryStore } from '../../admission/automatic-persisted.js';
import { asksForParts } from '../../graph/incremental-document.js';
import type { Initial, LeanAnswers } from './respond.js';
import type { LeanBody, LeanParams, LeanRequest } from './request.js';

export interface BatchSteps extends Pick<LeanAnswers, 'answerResult' | 'resultOf'> {
  /** `BATCHING_LIMIT`; a larger batch, or any with batching off, is yoga's to refuse. */
  limit: number;
  rate: Pick<RateLimit, 'batch'>;
  apq: Pick<PersistedQueryStore, 'register'>;
  /** One operation's parameters, or their refusal; undefined: not the lean path's. */
  read(params: LeanBody, record: GatewayRequest): LeanParams | Refusal | undefined;
  /** Its document, parsed and validated, or the errors yoga answers for it. */
  document(params: LeanParams, initial: Initial): DocumentNode | GraphQLError[];
  schema(): GraphQLSchema;
}

/** Serves a batch and answers true, or answers false having written nothing and counted nothing. */
export type Batch = (req: IncomingMessage, res: ServerResponse, request: LeanRequest, record: GatewayRequest, items: LeanBody[], mediaType: string) => boolean;

type Planned = { result: ExecutionResult } | { args: ExecutionArgs; params: LeanParams; name: string };

export function createBatches({ limit, rate, apq, read, document, schema, answerResult, resultOf }: BatchSteps): Batch {
  return (req, res, request, record, items, mediaType) => {
    if (items.length > limit) return false;
    const planned: Planned[] = [];
    for (const item of items) {
      const one = plan(item, req, res, request, record);
      if (one === undefined) return false;
      planned.push(one);
    }
    const answer = (refused: Refusal | undefined) => {
      if (refused !== undefined) {
        record.rejectedAs = 'rate_limited';
        return answerResult(record, res, { errors: [refusalError(refused)] }, mediaType);
      }
      void Promise.all(planned.map((one) => run(one, req, res, request, record))).then((results) => answerResult(record, res, results, mediaType));
    };
    const refused = rate.batch(record.client, req, items.length);
    if (refused instanceof Promise) void refused.then(answer);
    else answer(refused);
    return true;
  };

  // Private: an operation's result made now (a refusal, a document's errors), or what it runs; undefined: yoga's.
  function plan(item: LeanBody, req: IncomingMessage, res: ServerResponse, request: LeanRequest, record: GatewayRequest): Planned | undefined {
    const params = read(item, record);
    if (params === undefined) return undefined;
    if (isRefusal(params)) return { result: { errors: [refusalError(params)] } };
    const parsed = document(params, { request, params, req, res, gatewayRequest: record });
    if (Array.isArray(parsed)) return { result: { errors: parsed } };
    const operation = getOperationAST(parsed, params.operationName);
    if (operation?.operation !== 'query' || asksForParts(parsed)) return undefined;
    const args = { schema: schema(), document: parsed, variableValues: params.variables, operationName: params.operationName, contextValue: undefined };
    return { args, params, name: operation.name?.value ?? 'anonymous' };
  }

  // Private: an operation run, in its own context, as yoga runs each operation of a batch.
  function run(one: Planned, req: IncomingMessage, res: ServerResponse, request: LeanRequest, record: GatewayRequest): ExecutionResult | Promise<ExecutionResult> {
    if ('result' in one) return one.result;
    const { args, params, name } = one;
    if (params.register !== undefined) apq.register(params.register, params.query);
    record.graphql = true;
    record.operations.push(name);
    return resultOf(args, { request, params, req, res, gatewayRequest: record });
  }
}
