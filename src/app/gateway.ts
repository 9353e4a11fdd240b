/**
 * createGateway: the yoga instance and everything behind it, for one upstream; listening is main.ts's job.
 *   door → admission → GraphQL road (doors/graphql/, yoga's engine) → resolvers → per-request loaders → shared cache → upstream api → client → token
 */
import { readFileSync } from 'node:fs';
import { normalizedExecutor } from '@graphql-tools/executor';
import { createSchema, createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { systemClock, type Clock } from '../base/clock.js';
import type { GatewayConfig } from '../base/config/config.js';
import { createTimeReader } from '../catalog/opening-hours.js';
import { createCursors } from '../graph/arguments/cursors.js';
import { createContextFactory, type GatewayContext } from '../graph/context.js';
import type { Logger } from '../base/logger.js';
import { createMetrics, type GatewayMetrics } from '../observability/metrics.js';
import { createObservers } from '../observability/observers.js';
import { createAddressOf, type AddressOf } from '../request/client-address.js';
import { REQUEST_ID_HEADER, requestIdFrom, withRequestIds } from '../request/current.js';
import { createRequest, type DoorContext, type GatewayRequest } from '../request/request.js';
import { createTracing } from '../observability/tracing.js';
import { maskError } from '../graph/mask-error.js';
import { healthPage } from '../pages/operator/health.js';
import { purgePage } from '../pages/operator/purge.js';
import { metricsPage } from '../pages/operator/metrics.js';
import { demoPage } from '../pages/explorer/demo.js';
import { GRAPHIQL_OPTIONS, graphiqlPage } from '../pages/explorer/graphiql.js';
import { schemaPage } from '../pages/explorer/schema.js';
import { rootPage } from '../pages/root.js';
import { createPages, isPage } from '../pages/pages.js';
import { createPurger } from '../response-cache/purge.js';
import { createAdmission, type Admission } from '../admission/admission.js';
import { useRequestLog } from '../plugins/operator/use-request-log.js';
import { createRequestLog } from '../request/log.js';
import { traceOperations, traceRequests } from '../plugins/operator/use-tracing.js';
import { createCors } from '../encoding/cors.js';
import { createHttpCaching } from '../encoding/http-caching.js';
import { createPersistedQueryStore } from '../admission/automatic-persisted.js';
import { createCompression } from '../encoding/compress.js';
import { createResponseCache } from '../response-cache/store.js';
import { answerNamespace } from '../response-cache/namespace.js';
import { createParserCaches } from '../graph/parser-caches.js';
import { useRequestScope } from '../plugins/serving/use-request-scope.js';
import { createCompiledExecution } from '../graph/execution/compile.js';
import { createQueryRunner } from '../graph/execution/run.js';
import { argumentCheck } from '../graph/checks/arguments.js';
import { itemCheck } from '../graph/checks/items.js';
import { budgetCheck } from '../graph/checks/budget.js';
import { resolvers } from '../graph/resolvers/index.js';
import { tagEntitiesShown } from '../graph/resolvers/entity-tags.js';
import { createScaleOut } from './fleet.js';
import { createData } from './data.js';
import { createPersistedReload, type ReloadOutcome } from './persisted-reload.js';
import { createGraphQLRoad } from '../doors/graphql/road.js';
import { createLive, type Live } from '../live/live.js';
import { createBodyAdmission, type BodyAdmission } from '../admission/before-body.js';
import { ROUTES } from '../admission/routes.js';
import type { Arrive, BodyHandler } from '../doors/http/body.js';
import { yogaLogger } from './yoga-logger.js';
import { engineOf } from './engine.js';

export type { GatewayConfig } from '../base/config/config.js';

export interface GatewayDependencies {
  logger: Logger;
  /** The one clock every component is given; a test's wall face also drives the fleet's rate-limit buckets. Default `systemClock`. */
  clock?: Clock;
  /** Directory of the built example page (dist/web), served at /demo. Default: none, no /demo. */
  demoPageDirectory?: string;
  /** A test hook: the yoga plugins as wired, filtered or reordered. Default: as wired. */
  plugins?: (plugins: Plugin[], named: { requestLog: Plugin; requestScope: Plugin }) => Plugin[];
}

export interface Gateway {
  yoga: YogaServerInstance<DoorContext, GatewayContext>;
  /** Live stock: `close()` ends every subscription (before the server closes, on SIGTERM); tests run poll rounds with `poller.pollNow()`. */
  live: Live;
  /** Makes a request's object as it arrives at the HTTP door; every later step is handed it. */
  arrive: Arrive<GatewayRequest>;
  /** The HTTP handler: the GraphQL road for GraphQL's path, the pages for every other. */
  serve: BodyHandler<GatewayRequest>;
  /** The API key and rate limit of a request with a body, checked from its headers before the body is read. */
  admitBody: BodyAdmission;
  /** The one admission every door calls (admission/admission.ts): the WebSocket door's too. */
  admission: Admission;
  /** Where a request without an API key comes from (`TRUST_PROXY`): a WebSocket upgrade's client is known by it. */
  addressOf: AddressOf;
  /** The request metrics, which the WebSocket door counts its operations in too. */
  metrics: GatewayMetrics;
  /** The one clock every component was given: the WebSocket door reads its operations' times on it. */
  clock: Clock;
  /** Reads the persisted documents file again and swaps the list; a bad file keeps the old one. */
  reloadPersisted(): Promise<ReloadOutcome>;
  /** Marks the gateway as stopping (SIGTERM): `/readyz` answers 503 from then on; requests are still served. */
  drain(): void;
  /** Releases upstream connections. The HTTP server, if any, is closed by its owner first. */
  close(): Promise<void>;
}

const TYPE_DEFS = readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8');

export function createGateway(config: GatewayConfig, { logger, clock = systemClock, demoPageDirectory, plugins = (all) => all }: GatewayDependencies): Gateway {
  // The fleet's buckets keep Redis's time unless a test set the wall (see `clock`).
  const fleetClock = clock.wall === systemClock.wall ? undefined : clock;
  const { upstream } = config;
  const log = withRequestIds(logger);
  const tracing = config.tracing && createTracing(config.tracing);
  const scaleOut = config.redis && createScaleOut(config.redis, {
    upstream, tokenTimeoutMs: config.tokenTimeoutMs, clock, logger: log, onError: (operation) => metrics.redisError(operation),
  });
  // Read at scrape time, when the data side below exists.
  const metrics = createMetrics({
    breakerStates: () => data.client.breakerStates(), cacheEntries: () => data.cache.size, ...(scaleOut ? { redisState: scaleOut.state } : {}),
    indexAges: () => data.index?.ages() ?? {},
    liveState: () => ({ subscriptions: live.subscriptions(), watchedKeys: live.poller.watchedKeys() }),
  }, { clock });
  const observers = createObservers(metrics);
  const data = createData(config, { clock, log, metrics, observers, tracing, scaleOut });
  const { client, tokens, cache, api, sources, index } = data;
  const live = createLive(config.live, { api, sources, index, metrics, bus: scaleOut?.liveBus, upstreamMaxConcurrency: config.upstreamMaxConcurrency, clock });
  const siteTime = createTimeReader(config.siteTimeZone, clock);
  // The same on every replica and after a restart: from the secret they share (cursors.ts).
  const cursors = createCursors(upstream.clientSecret);
  const responseCache = createResponseCache({
    maxBytes: config.responseCacheMaxBytes, clock, shared: scaleOut?.answers(answerNamespace(TYPE_DEFS, { ...config, cursorKey: cursors.id })),
  });
  const compression = createCompression({
    on: config.compression, minBytes: config.compressionMinBytes, cache: responseCache, onCompressed: (coding) => metrics.compression(coding),
  });
  const purger = createPurger({ cache, responseCache, metrics, logger: log, bus: scaleOut?.purgeBus });
  const addressOf = createAddressOf(config.trustProxy);
  // With Redis, one rate-limit bucket per client for the fleet; in-process ones while Redis is down.
  const admission = createAdmission(config, {
    batchingLimit: config.batchingLimit, clock, addressOf,
    ...(scaleOut ? { shared: (capacity: number, refillMs: number) => scaleOut.rateLimitBuckets({ capacity, refillMs, clock: fleetClock }) } : {}),
  });

  // Set by drain() or close(): readiness falls, nothing else changes.
  let stopping = false;
  const parserCaches = createParserCaches();
  const endRequest = createRequestLog(metrics, { samplePercent: config.requestLogSamplePercent, slowMs: config.requestLogSlowMs }, clock);
  const requestLog = useRequestLog();
  const requestScope = useRequestScope();
  const cors = createCors(config.corsOrigins);
  const caching = createHttpCaching({ clock, apiKeys: config.apiKeys.length > 0 });
  const apq = createPersistedQueryStore();
  // The checks before every operation, for both doors. Arguments first: a bad one is named as such, never priced.
  const checks = [
    argumentCheck({ maxPageSize: config.maxPageSize, siteTime, cursors }),
    itemCheck(config.maxItemsPerOperation),
    budgetCheck(config.maxUpstreamCallsPerOperation, sources),
  ];
  const executorFor = createCompiledExecution(config.executionCompiled);
  const contextOf = createContextFactory(sources, { ...config, index, siteTime, live, cursors, addressOf, clock });
  const yoga = createYoga<DoorContext, GatewayContext>({
    schema: tagEntitiesShown(createSchema<GatewayContext>({ typeDefs: TYPE_DEFS, resolvers })),
    context: contextOf,
    graphqlEndpoint: ROUTES.graphql,
    maskedErrors: { maskError },
    logging: yogaLogger(log),
    // yoga is the engine (its envelop steps, caches and encoders), not the HTTP server: the doors are the gateway's.
    graphiql: false,
    landingPage: false,
    cors: false,
    parserAndValidationCache: parserCaches,
    plugins: plugins(engineOf({ config, tracing, requestLog, requestScope, checks, executorFor, responseCache }), { requestLog, requestScope }),
  });

  const admitBody = createBodyAdmission(admission, { adminKeys: config.adminApiKeys });
  // With tracing, the GraphQL road opens the operation spans.
  const operations = tracing && traceOperations(tracing);
  const run = createQueryRunner(checks, executorFor, normalizedExecutor);
  const graphql = createGraphQLRoad({
    yoga, graphiql: config.graphiql, end: endRequest, admission, admit: admitBody, apq, batchingLimit: config.batchingLimit, responseCache, compression, context: contextOf,
    run: operations ? operations.run(run) : run,
    traceStored: operations ? operations.stored : undefined,
    traceParts: operations ? operations.inParts : undefined,
    cors, caching,
    allowList: config.persistedOperations !== undefined,
    documents: parserCaches.documentCache,
  });
  // Every path but GraphQL's, and GraphiQL's page on it: the gateway's own pages.
  const page = createPages({
    admission, cors, metrics, end: endRequest, graphiql: config.graphiql, onError: (error) => log.error({ err: error }, 'a page failed'),
    pages: {
      root: rootPage({ graphiql: config.graphiql, demo: demoPageDirectory !== undefined }),
      health: healthPage(client, { redisState: scaleOut?.state, stopping: () => stopping }),
      purge: purgePage(purger, config.adminApiKeys),
      demo: demoPage(demoPageDirectory, { compress: config.compression }),
      metrics: metricsPage(metrics),
      explorer: graphiqlPage(config.graphiql && GRAPHIQL_OPTIONS, { compress: config.compression }),
      schema: schemaPage(TYPE_DEFS, config.introspection),
    },
  });
  // Every request in its span when tracing; the async context is set where shared components will need it: around the GraphQL road's executions.
  const traced = tracing && traceRequests(tracing);
  const serve: BodyHandler<GatewayRequest> = (req, res, request) => {
    const road = isPage(req, { graphiql: config.graphiql }) ? page : graphql;
    if (traced) traced(request, req, res, () => road(req, res, request));
    else road(req, res, request);
  };

  return {
    yoga,
    arrive: (req) => createRequest(requestIdFrom(req.headers[REQUEST_ID_HEADER] as string | undefined), logger, clock.monotonic()),
    serve,
    admitBody,
    admission,
    addressOf,
    metrics,
    clock,
    live,
    reloadPersisted: createPersistedReload(config.persistedOperations, admission, log),
    drain() {
      stopping = true;
    },
    async close() {
      stopping = true;
      live.close();
      purger.close();
      await client.close();
      await tokens.close();
      await scaleOut?.close();
      await tracing?.shutdown();
    },
  };
}
