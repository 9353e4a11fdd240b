/**
 * The two outer spans of a request's trace: the HTTP request (never its query string, which may
 * carry variables), opened by its door around all of its work and kept on its request object,
 * with its counts and error codes; and each GraphQL operation with its type, name and document
 * hash (never its variables). Without tracing, nothing.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RunQuery } from '../../graph/execution/run.js';
import { createHash } from 'node:crypto';
import { SpanKind, SpanStatusCode, context, trace, type Span } from '@opentelemetry/api';
import { getOperationAST, print, type DocumentNode, type GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { requestIn, type GatewayRequest } from '../../request/request.js';
import { codeOf } from '../../base/errors.js';
import { recordError, type Tracing } from '../../observability/tracing.js';

type PromiseOrValue<T> = T | Promise<T>;
/** A later part of an incremental response (graphql-js 17's format, as yoga's plugin sends it). */
type IncrementalPart = { incremental?: ReadonlyArray<{ errors?: readonly GraphQLError[] }> };

/** Runs `serve` in the request's span, kept on `request` and ended once its answer is; its door calls this. */
export type TraceRequest = (request: GatewayRequest, req: IncomingMessage, res: ServerResponse, serve: () => PromiseOrValue<unknown>) => void;

export function traceRequests(tracing: Tracing): TraceRequest {
  return (request, req, res, serve) => {
    const method = req.method ?? 'GET';
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const span = tracing.requestSpan(`${method} ${path}`, { 'http.request.method': method, 'url.path': path }, req.headers);
    request.span = span;
    res.once('close', () => span.end());
    context.with(trace.setSpan(context.active(), span), () => {
      try {
        const served = serve();
        if (typeof (served as Promise<unknown> | undefined)?.then === 'function') (served as Promise<unknown>).catch((error: unknown) => recordError(span, error));
      } catch (error) {
        recordError(span, error);
        throw error;
      }
    });
  };
}

/**
 * The GraphQL road's operation spans: `run` wrapped in one (the upstream
 * calls beneath it, its errors on it), and `stored` for an answer served stored.
 */
export function traceOperations(tracing: Tracing): {
  run<R extends RunQuery>(run: R): R;
  stored(document: DocumentNode, operationName: string | null | undefined, query: string): void;
  /** `run` (yoga's enveloped execute or subscribe) in an operation span the execution hooks describe, ended by the last part. */
  inParts<T>(run: () => Promise<T>): Promise<T>;
} {
  const { tracer } = tracing;
  return {
    inParts(run) {
      const span = tracer.startSpan('graphql.operation', { kind: SpanKind.INTERNAL });
      operationSpans.add(span);
      return context.with(trace.setSpan(context.active(), span), async () => {
        try {
          const result = await run();
          if (!streaming.has(span)) span.end();
          return result;
        } catch (error) {
          recordError(span, error);
          span.end();
          throw error;
        }
      });
    },
    run: (run) => (async (args) => {
      const span = tracer.startSpan('graphql.operation', { kind: SpanKind.INTERNAL });
      describeOperation(span, args.document, args.operationName, (args.contextValue as { params?: { query?: unknown } }).params?.query);
      try {
        const result = await context.with(trace.setSpan(context.active(), span), () => run(args));
        recordErrors(span, result.errors);
        // As yoga's result processing does: the request's span gets them too.
        const requestSpan = requestIn(args.contextValue)?.span;
        if (requestSpan?.isRecording()) recordErrors(requestSpan, result.errors);
        return result;
      } catch (error) {
        recordError(span, error);
        throw error;
      } finally {
        span.end();
      }
    }) as typeof run,
    stored(document, operationName, query) {
      const span = tracer.startSpan('graphql.operation', { kind: SpanKind.INTERNAL });
      describeOperation(span, document, operationName, query);
      span.end();
    },
  };
}

/** The operation spans the execution hooks describe (those of answers in parts). */
const operationSpans = new WeakSet<Span>();
/** Operation spans that end with their response's last part, not when execution returns. */
const streaming = new WeakSet<Span>();

export function useTracing(tracing: Tracing | undefined): Plugin {
  if (tracing === undefined) return {};
  return {
    onExecute({ args }) {
      const span = trace.getActiveSpan();
      if (span === undefined || !operationSpans.has(span) || !span.isRecording()) return undefined;
      describeOperation(span, args.document, args.operationName, (args.contextValue as { params?: { query?: unknown } }).params?.query);
      return {
        onExecuteDone({ result }) {
          if (!(Symbol.asyncIterator in result)) return recordErrors(span, result.errors);
          // An incremental response is one operation: its span lasts until the last part, with every part's errors.
          streaming.add(span);
          return {
            onNext: ({ result: part }) => {
              recordErrors(span, part.errors);
              for (const piece of (part as IncrementalPart).incremental ?? []) recordErrors(span, piece.errors);
            },
            onEnd: () => span.end(),
          };
        },
      };
    },
  };
}

// Private: the operation's name, type and document hash; the span is named `query SiteLanes`.
function describeOperation(span: Span, document: DocumentNode, operationName: string | null | undefined, query: unknown): void {
  const operation = getOperationAST(document, operationName);
  const type = operation?.operation ?? 'unknown';
  const name = operation?.name?.value;
  const text = typeof query === 'string' ? query : print(document);
  span.updateName(name === undefined ? type : `${type} ${name}`);
  span.setAttributes({
    'graphql.operation.type': type,
    ...(name === undefined ? {} : { 'graphql.operation.name': name }),
    'graphql.document.hash': `sha256:${createHash('sha256').update(text).digest('hex')}`,
  });
}

// Private: the `extensions.code`s of a result's errors on `span` (status ERROR, one event each).
function recordErrors(span: Span, errors: readonly GraphQLError[] | undefined): void {
  if (errors === undefined || errors.length === 0) return;
  const codes = new Set<string>();
  for (const error of errors) {
    const code = codeOf(error);
    codes.add(code);
    span.addEvent('exception', { 'exception.type': code, ...(error.path ? { 'graphql.error.path': error.path.join('.') } : {}) });
  }
  span.setAttribute('graphql.error.codes', [...codes]);
  span.setStatus({ code: SpanStatusCode.ERROR, message: [...codes].join(',') });
}
