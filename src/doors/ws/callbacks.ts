/**
 * The GraphQL of a WebSocket connection: graphql-ws's callbacks over the gateway's yoga, with an
 * HTTP request's guards in the same order (API key at `connection_init`; per `subscribe`, the
 * socket's operation limit, the admission, then yoga's enveloped parse, validate and execute). A
 * refusal is a coded `error` message; each operation is a request of its own, with its own log line.
 */
import type { Clock } from '../../base/clock.js';
import type { IncomingMessage } from 'node:http';
import { getOperationAST, type ExecutionArgs, type ExecutionResult, type GraphQLError } from 'graphql';
import type { ConnectionInitMessage, ServerOptions, SubscribePayload } from 'graphql-ws';
import type { Extra } from 'graphql-ws/use/ws';
import type { Logger } from '../../base/logger.js';
import { codeOf } from '../../base/errors.js';
import { coded } from '../../base/graph-errors.js';
import { requestIdFrom, runInRequest } from '../../request/current.js';
import { createRequest, type GatewayRequest } from '../../request/request.js';
import { withCounts } from '../../request/log.js';
import type { Connection } from './connection.js';
import { refusalError } from '../../admission/refusal.js';
import { admittedQuery, createConnectionCheck, type WebSocketConfig, type WebSocketGateway } from './guards.js';
import type { Registered } from './registry.js';
import { endingWithMaskedError, formatted, masked } from './results.js';

/** One connection's state, kept in graphql-ws's `extra`. */
export interface ConnectionState {
  /** The client by its accepted API key (`key:<fingerprint>`); undefined without keys. */
  client: string | undefined;
}

/** An operation of a socket, as its registry holds it. */
export interface SocketOperation extends Registered {
  record: GatewayRequest;
  operation: string;
  /** `next` messages sent. */
  events: number;
}

/** What graphql-ws's callbacks get of a socket: ws's, the socket as the gateway checks it, and its state once initialised. */
export type SocketExtra = Extra & { connection: Connection<SocketOperation> } & Partial<{ state: ConnectionState }>;
type Enveloped = ReturnType<WebSocketGateway['yoga']['getEnveloped']>;
/** What onSubscribe prepared for the arguments it returns: graphql-ws hands the same object to execute or subscribe. */
type Prepared = { enveloped: Enveloped; request: Request; operation: SocketOperation; connection: Connection<SocketOperation> };

/** The media type whose stored answers a WebSocket query may be served (the response cache keys on `Accept`). */
const ANSWER_TYPE = 'application/graphql-response+json';

/** graphql-ws's server options: every callback of the protocol, over `gateway`'s yoga. */
export function createSocketOperations(gateway: WebSocketGateway, config: WebSocketConfig, logger: Logger): ServerOptions<ConnectionInitMessage['payload'], SocketExtra> {
  const { admission, clock } = gateway;
  const checkConnection = createConnectionCheck(admission);
  const maxOperations = config.webSocket.maxOperationsPerSocket;
  const url = `http://localhost${gateway.yoga.graphqlEndpoint}`;
  const prepared = new WeakMap<ExecutionArgs, Prepared>();
  const byPayload = new WeakMap<SubscribePayload, SocketOperation>();

  const run = async (args: ExecutionArgs, how: 'execute' | 'subscribe') => {
    const { enveloped, operation, connection } = prepared.get(args)!;
    try {
      const result = (await runInRequest(operation.record, () => enveloped[how](args))) as ExecutionResult | AsyncIterable<ExecutionResult>;
      if (Symbol.asyncIterator in result) return connection.operations.adopt(operation, endingWithMaskedError(result));
      const stored = operation.record.served;
      return stored === undefined ? result : (JSON.parse(new TextDecoder().decode(stored.body)) as ExecutionResult);
    } catch (error) {
      return { errors: [masked(error)] };
    }
  };

  async function prepare(extra: SocketExtra, operation: SocketOperation, payload: SubscribePayload, query: string): Promise<ExecutionArgs | readonly GraphQLError[]> {
    const request = new Request(url, { method: 'POST', headers: requestHeaders(extra.request), signal: operation.controller.signal });
    const params = { query, variables: payload.variables, operationName: payload.operationName, extensions: payload.extensions };
    const enveloped = gateway.yoga.getEnveloped({ request, params, req: extra.request, socket: extra.socket, gatewayRequest: operation.record } as never);
    const document = enveloped.parse(query);
    const errors = enveloped.validate(enveloped.schema, document);
    if (errors.length > 0) return errors;
    operation.operation = getOperationAST(document, payload.operationName)?.name?.value ?? operation.operation;
    const args: ExecutionArgs = {
      schema: enveloped.schema, document, operationName: payload.operationName, variableValues: payload.variables,
      contextValue: await enveloped.contextFactory(),
    };
    prepared.set(args, { enveloped, request, operation, connection: extra.connection });
    return args;
  }

  const count = (operation: SocketOperation, ended: 'done' | 'refused') => {
    const { outcome, durationMs } = logLine(operation, ended, clock);
    gateway.metrics.graphqlRequest({ operation: operation.operation, ran: ended === 'done' }, outcome, durationMs);
  };

  return {
    execute: (args) => run(args, 'execute'),
    subscribe: (args) => run(args, 'subscribe'),
    onConnect(ctx) {
      const verdict = checkConnection(ctx.extra.request, ctx.connectionParams);
      if ('refused' in verdict) {
        ctx.extra.connection.shut(4403, verdict.refused);
        return false;
      }
      ctx.extra.state = { client: verdict.client };
      return true;
    },
    async onSubscribe(ctx, id, payload) {
      const { connection } = ctx.extra;
      const state = ctx.extra.state!;
      const operation = startOperation(id, state, payload, logger, clock.monotonic());
      byPayload.set(payload, operation);
      const refused = (errors: readonly GraphQLError[]) => {
        connection.operations.remove(operation);
        for (const error of errors) operation.record.errorCodes.add(codeOf(error));
        count(operation, 'refused');
        return errors;
      };
      const dropped = () => {
        connection.operations.remove(operation);
        count(operation, 'done');
        return [coded('OPERATION_ENDED')];
      };
      if (!connection.usable()) return dropped();
      if (connection.operations.size >= maxOperations) {
        return refused([coded('TOO_MANY_OPERATIONS', `Too many operations on this connection: at most ${maxOperations} may run at once; complete one first`)]);
      }
      connection.operations.add(operation);
      const limited = admission.rate.refusal(await admission.rate.take(state.client, ctx.extra.request));
      if (limited !== undefined) return refused([refusalError(limited)]);
      const query = admittedQuery(payload, admission);
      if (typeof query !== 'string') return refused([query]);
      try {
        const args = await prepare(ctx.extra, operation, payload, query);
        if (Array.isArray(args)) return refused(args);
        if (operation.ended || !connection.usable()) return dropped();
        return args as ExecutionArgs;
      } catch (error) {
        return refused([masked(error)]);
      }
    },
    onNext(_ctx, _id, _payload, args, result) {
      const operation = prepared.get(args)?.operation;
      if (operation !== undefined) {
        operation.events += 1;
        for (const error of result.errors ?? []) operation.record.errorCodes.add(codeOf(error));
      }
      return { ...result, ...(result.errors && { errors: result.errors.map(formatted) }) };
    },
    onError: (_ctx, _id, _payload, errors) => errors.map(formatted),
    onComplete(ctx, _id, payload) {
      const operation = byPayload.get(payload);
      if (operation === undefined) return;
      ctx.extra.connection.operations.remove(operation);
      operation.controller.abort(new Error('the operation ended'));
      count(operation, 'done');
    },
  };
}

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,99}$/;

// Private: an operation that just arrived, with its record (a request's, known by the connection's client).
function startOperation(id: string, state: ConnectionState, payload: SubscribePayload, logger: Logger, startedAt: number): SocketOperation {
  const record = createRequest(requestIdFrom(undefined), logger, startedAt);
  record.graphql = true;
  record.client = state.client;
  const name = payload.operationName;
  const operation = typeof name === 'string' && GRAPHQL_NAME.test(name) ? name : 'anonymous';
  return { id, record, controller: new AbortController(), ended: false, operation, events: 0 };
}

// Private: the operation's log line, as the request log writes an HTTP request's (no status: none was sent).
function logLine({ record, operation, events }: SocketOperation, ended: 'done' | 'refused', clock: Clock): { outcome: 'ok' | 'error'; durationMs: number } {
  const durationMs = clock.monotonic() - record.startedAt;
  const outcome = ended === 'done' && record.errorCodes.size === 0 ? 'ok' : 'error';
  record.logLine(withCounts(record, { transport: 'websocket', operation, outcome, durationMs: Math.round(durationMs * 10) / 10, events }), 'graphql request');
  return { outcome, durationMs };
}

// Private: each operation's `Request` headers: the upgrade's, with a GraphQL `Accept` (the cache keys on it).
function requestHeaders(request: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string' && !name.startsWith('sec-websocket-')) headers.set(name, value);
  }
  headers.set('accept', ANSWER_TYPE);
  return headers;
}
