/**
 * A batch (`BATCHING_LIMIT`): a JSON array of queries answered as one array. Every operation is
 * read, parsed and validated before the batch's n − 1 more rate-limit tokens are taken; an item
 * that cannot run (unreadable, refused, not valid, asking for parts) is answered by its error in
 * its place. A batch is neither looked up nor stored in the response cache.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getOperationAST, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLError, type GraphQLSchema } from 'graphql';
import { coded } from '../../base/graph-errors.js';
import type { GatewayRequest } from '../../request/request.js';
import type { RateLimit } from '../../admission/rate-limit.js';
import { isRefusal, refusalError, type Refusal } from '../../admission/refusal.js';
import type { PersistedQueryStore } from '../../admission/automatic-persisted.js';
import { runningAsksForParts } from '../../graph/incremental-document.js';
import type { Initial, Answers } from './respond.js';
import { unresolved } from './documents.js';
import type { HookRequest } from './request.js';
import type { SentParams, GraphQLParams } from './read.js';

export interface BatchSteps extends Pick<Answers, 'answerAs' | 'resultOf'> {
  /** `BATCHING_LIMIT`; 0: batching is off. */
  limit: number;
  rate: Pick<RateLimit, 'batch'>;
  apq: Pick<PersistedQueryStore, 'register'>;
  /** One operation's parameters, or why they are not read. */
  read(params: SentParams, record: GatewayRequest): GraphQLParams | Refusal | GraphQLError;
  /** Its document, parsed and validated, or its errors. */
  document(params: GraphQLParams, initial: Initial): DocumentNode | GraphQLError[];
  schema(): GraphQLSchema;
}

/** Serves a batch: `items`, each an operation's parameters or why they could not be read. */
export type Batch = (req: IncomingMessage, res: ServerResponse, request: HookRequest, record: GatewayRequest, items: Array<SentParams | GraphQLError>, accept: string) => void;

type Planned = { result: ExecutionResult } | { args: ExecutionArgs; params: GraphQLParams; name: string };

export function createBatches({ limit, rate, apq, read, document, schema, answerAs, resultOf }: BatchSteps): Batch {
  return (req, res, request, record, items, accept) => {
    const whole = (result: ExecutionResult | ExecutionResult[]) => answerAs(record, res, result as never, accept, false);
    if (limit === 0) return whole({ errors: [coded('BAD_REQUEST', 'Batching is not supported.')] });
    if (items.length > limit) return whole({ errors: [coded('BAD_REQUEST', `Batching is limited to ${limit} operations per request.`, { status: 413 })] });
    if (items.length === 0) return whole([]);
    const planned = items.map((item) => plan(item, req, res, request, record));
    const answer = (refused: Refusal | undefined) => {
      if (refused !== undefined) {
        record.rejectedAs = 'rate_limited';
        return whole({ errors: [refusalError(refused)] });
      }
      void Promise.all(planned.map((one) => run(one, req, res, request, record))).then(whole);
    };
    const refused = rate.batch(record.client, req, items.length);
    if (refused instanceof Promise) void refused.then(answer);
    else answer(refused);
  };

  // Private: an operation's result made now (its error), or what it runs.
  function plan(item: SentParams | GraphQLError, req: IncomingMessage, res: ServerResponse, request: HookRequest, record: GatewayRequest): Planned {
    if (item instanceof Error) return { result: { errors: [item] } };
    const params = read(item, record);
    if (isRefusal(params)) return { result: { errors: [refusalError(params)] } };
    if (params instanceof Error) return { result: { errors: [params] } };
    const parsed = document(params, { request, params, req, res, gatewayRequest: record });
    if (Array.isArray(parsed)) return { result: { errors: parsed } };
    const operation = getOperationAST(parsed, params.operationName);
    if (operation == null) return { result: { errors: [unresolved()] } };
    const args = { schema: schema(), document: parsed, variableValues: params.variables, operationName: params.operationName, contextValue: undefined };
    if (operation.operation !== 'query' || runningAsksForParts(args)) return { result: { errors: [coded('NOT_ACCEPTABLE', IN_PARTS)] } };
    return { args, params, name: operation.name?.value ?? 'anonymous' };
  }

  // Private: an operation run, in its own context, as yoga runs each operation of a batch.
  function run(one: Planned, req: IncomingMessage, res: ServerResponse, request: HookRequest, record: GatewayRequest): ExecutionResult | Promise<ExecutionResult> {
    if ('result' in one) return one.result;
    const { args, params, name } = one;
    if (params.register !== undefined) apq.register(params.register, params.query);
    record.graphql = true;
    record.operations.push(name);
    return resultOf(args, { request, params, req, res, gatewayRequest: record });
  }
}

const IN_PARTS = 'This operation uses @defer or @stream, which a batch cannot answer in parts; send it alone';
