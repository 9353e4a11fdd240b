/**
 * The road of a GraphQL request through yoga, declared once, in the order its steps run: wrap,
 * admit, read parameters, answer cache and encoding, checks, execute. Every step reads the request
 * object its door handed on (request/request.ts). Every other path is a page (pages/pages.ts);
 * the lean path (doors/lean/) and the WebSocket door (doors/ws/callbacks.ts) run the same
 * admission, `checks` and executor, in this order.
 */
import type { Plugin } from 'graphql-yoga';
import type { Clock } from '../base/clock.js';
import type { GatewayConfig } from '../base/config/config.js';
import type { Logger } from '../base/logger.js';
import type { Admission } from '../admission/admission.js';
import type { Cors } from '../encoding/cors.js';
import type { Compression } from '../encoding/compress.js';
import type { CachingHeaders } from '../encoding/http-caching.js';
import type { PersistedQueryStore } from '../admission/automatic-persisted.js';
import type { ExecutorFor } from '../graph/execution/compile.js';
import { beforeEveryOperation, type OperationCheck } from '../graph/running-operation.js';
import type { Tracing } from '../observability/tracing.js';
import { useTracing } from '../plugins/operator/use-tracing.js';
import { useApiKeys } from '../plugins/protection/use-api-keys.js';
import { useCorsHeaders } from '../plugins/protection/use-cors.js';
import { useKnownOperationTypes } from '../plugins/protection/use-known-operation-types.js';
import { useParameterLimits } from '../plugins/protection/use-parameter-limits.js';
import { protectionPlugins } from '../plugins/protection/use-protection.js';
import { useRateLimit } from '../plugins/protection/use-rate-limit.js';
import { useCompiledExecution } from '../plugins/serving/use-compiled-execution.js';
import { useCompression } from '../plugins/serving/use-compression.js';
import { useHttpCaching } from '../plugins/serving/use-http-caching.js';
import { useIncrementalDelivery } from '../plugins/serving/use-incremental-delivery.js';
import { useNotAcceptable } from '../plugins/serving/use-not-acceptable.js';
import { useReadableBody } from '../plugins/serving/use-readable-body.js';
import { useRequest } from '../plugins/serving/use-request.js';
import { useResponseCache } from '../plugins/serving/use-response-cache.js';
import type { ResponseCache } from '../response-cache/store.js';

export interface RoadParts {
  config: GatewayConfig;
  logger: Logger;
  clock: Clock;
  tracing: Tracing | undefined;
  cors: Cors;
  admission: Admission;
  /** The request's log line and metrics; the execution scope's end and notes (tests filter them out). */
  requestLog: Plugin;
  requestScope: Plugin;
  /** The checks before every operation, in order; the lean path and the WebSocket door run them too. */
  checks: ReadonlyArray<OperationCheck<never>>;
  executorFor: ExecutorFor;
  responseCache: ResponseCache;
  compression: Compression;
  /** The HTTP caching headers, the lean path's too. */
  caching: CachingHeaders;
  /** The automatic persisted queries' store, the lean path's too. */
  apq: PersistedQueryStore;
}

export function roadOf(parts: RoadParts): Plugin[] {
  const { config, admission, cors, compression } = parts;
  return [
    // Around everything: an Accept no encoder meets told why (first, so every later step sees that answer), the span, the request object and its log line.
    useNotAcceptable({ graphiql: config.graphiql }),
    useTracing(parts.tracing),
    useRequest(parts.logger, parts.clock),
    parts.requestLog,
    // Admit: the API key, then the rate limit.
    useApiKeys(admission),
    useRateLimit(admission.rate),
    // Read parameters: operation types, sizes, persisted documents, CSRF, the document's limits, readable bodies.
    useKnownOperationTypes(),
    useParameterLimits(admission),
    ...protectionPlugins(config, admission, parts.apq),
    useReadableBody(),
    // The execution's scope and incremental delivery wrap what follows.
    parts.requestScope,
    useIncrementalDelivery(),
    // Answer cache and encoding: caching headers, the stored answer (stored as made), then compression.
    useHttpCaching(parts.caching),
    useResponseCache(parts.responseCache, compression),
    useCompression(compression),
    // Checks before every operation (arguments first: a bad one is named, never priced), then the executor.
    ...parts.checks.map((check) => beforeEveryOperation(check)),
    useCompiledExecution(parts.executorFor),
    // Last: the CORS headers, and `Origin` added to the `Vary` every step above wrote.
    useCorsHeaders(cors),
  ] as Plugin[];
}
