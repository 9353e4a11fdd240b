/**
 * The steps of yoga's engine every GraphQL operation runs through, declared once, in order: the
 * document's (parse and validation rules), then the execution's (scope, incremental delivery,
 * answer cache, checks, executor). The HTTP road (doors/graphql/) and the WebSocket door
 * (doors/ws/callbacks.ts) call them through yoga's enveloped parse, validate, execute and
 * subscribe; admission, parameters and encoding are theirs. Every step reads the request object
 * its door handed on (request/request.ts).
 */
import type { Plugin } from 'graphql-yoga';
import type { GatewayConfig } from '../base/config/config.js';
import type { ExecutorFor } from '../graph/execution/compile.js';
import { beforeEveryOperation, type OperationCheck } from '../graph/running-operation.js';
import type { Tracing } from '../observability/tracing.js';
import { useTracing } from '../plugins/operator/use-tracing.js';
import { useKnownOperationTypes } from '../plugins/protection/use-known-operation-types.js';
import { protectionPlugins } from '../plugins/protection/use-protection.js';
import { useCompiledExecution } from '../plugins/serving/use-compiled-execution.js';
import { useIncrementalDelivery } from '../plugins/serving/use-incremental-delivery.js';
import { useRequest } from '../plugins/serving/use-request.js';
import { useResponseCache } from '../plugins/serving/use-response-cache.js';
import type { ResponseCache } from '../response-cache/store.js';

export interface EngineParts {
  config: GatewayConfig;
  tracing: Tracing | undefined;
  /** The request's log line and metrics; the execution scope's end and notes (tests filter them out). */
  requestLog: Plugin;
  requestScope: Plugin;
  /** The checks before every operation, in order; the HTTP road and the WebSocket door run them too. */
  checks: ReadonlyArray<OperationCheck<never>>;
  executorFor: ExecutorFor;
  responseCache: ResponseCache;
}

export function engineOf(parts: EngineParts): Plugin[] {
  const { config } = parts;
  return [
    // Around everything: the operation's span, the request object's notes, its log line's end after the last part.
    useTracing(parts.tracing),
    useRequest(),
    parts.requestLog,
    // The document: operation types, the introspection policy, the query limits.
    useKnownOperationTypes(),
    ...protectionPlugins(config),
    // The execution's scope and incremental delivery wrap what follows.
    parts.requestScope,
    useIncrementalDelivery(),
    // The stored answer of an operation run through yoga's execute (answers in parts).
    useResponseCache(parts.responseCache),
    // Checks before every operation (arguments first: a bad one is named, never priced), then the executor.
    ...parts.checks.map((check) => beforeEveryOperation(check)),
    useCompiledExecution(parts.executorFor),
  ] as Plugin[];
}
