/**
 * An answer in parts on the GraphQL road: a subscription, a query whose running operation has a
 * `@defer` or `@stream`, or any query to a client that accepts only parts. Run through yoga's
 * enveloped execute or subscribe, so that every execution hook runs (the scope, masking of later
 * parts, the request log's end after the last part, the response cache's lookup), then written
 * as `Accept` asks.
 */
import type { ServerResponse } from 'node:http';
import type { DocumentNode, ExecutionArgs, GraphQLError } from 'graphql';
import type { YogaServerInstance } from 'graphql-yoga';
import { maskError } from '../../graph/mask-error.js';
import { runningAsksForParts } from '../../graph/incremental-document.js';
import type { Parts } from '../../encoding/results.js';
import type { Answers, Initial } from './respond.js';
import { encodingFor, notAcceptable } from './request.js';
import type { GraphQLParams } from './read.js';
import type { Enveloped } from './documents.js';

/**
 * Serves `document`: a subscription, an operation asking for parts, or any to a client accepting
 * only parts. `mediaType`: JSON's, when the client accepts it.
 */
export type InParts = (
  initial: Initial, res: ServerResponse, document: DocumentNode, params: GraphQLParams, accept: string, mediaType: string | undefined, subscription: boolean,
) => void;

/** Runs an execution in parts in its operation span, with tracing. */
export type TraceParts = <T>(run: () => Promise<T>) => Promise<T>;

export function createInParts(
  yoga: Pick<YogaServerInstance<object, object>, 'getEnveloped'>, { answerAs, refuse }: Pick<Answers, 'answerAs' | 'refuse'>,
  { traced = (run) => run(), graphiql }: { traced?: TraceParts | undefined; graphiql: boolean },
): InParts {
  return (initial, res, document, params, accept, mediaType, subscription) => {
    const enveloped = yoga.getEnveloped(initial as never) as unknown as Enveloped;
    const { variables, operationName } = params;
    const args: ExecutionArgs = { schema: enveloped.schema, document, variableValues: variables, operationName, contextValue: undefined };
    // In parts, unless no encoder of parts is accepted: then refused in JSON (use-incremental-delivery.ts), or a 406.
    // An answer in one part (a `@defer` whose `if` is false): in JSON if accepted, else in parts.
    const inParts = subscription || runningAsksForParts(args);
    if (inParts && encodingFor(accept, true, subscription) === undefined && (subscription || mediaType === undefined)) {
      return refuse(initial.gatewayRequest, res, notAcceptable(res.req, subscription, graphiql));
    }
    void traced(() => resultOf(enveloped, args, subscription)).then((result) => answerAs(initial.gatewayRequest, res, result, accept, subscription));
  };
}

// Private: what yoga's request processing makes of it: the context, then execute or subscribe; a throw masked, in `errors`.
async function resultOf(enveloped: Enveloped, args: ExecutionArgs, subscription: boolean): Promise<Parts> {
  try {
    args.contextValue = await enveloped.contextFactory();
    return (await (subscription ? enveloped.subscribe(args) : enveloped.execute(args))) as Parts;
  } catch (error) {
    return { errors: [maskError(error) as GraphQLError] };
  }
}
