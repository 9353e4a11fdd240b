/**
 * createGateway: the yoga instance and everything behind it, for one upstream. Listening on a
 * port is main.ts's job (and the tests' harness), not this module's.
 *
 *   HTTP → yoga → resolvers → per-request loaders → shared cache → upstream api → client → token
 */
import { readFileSync } from 'node:fs';
import { createSchema, createYoga, type YogaServerInstance } from 'graphql-yoga';
import { createLruCache } from './cache/lru-cache.js';
import type { Clock } from './cache/cache.js';
import type { Config, UpstreamConfig } from './config.js';
import { createContextFactory, type GatewayContext } from './context.js';
import { EXAMPLE_QUERY } from './example-query.js';
import { createSources } from './loaders/sources.js';
import type { Logger } from './logger.js';
import { maskError } from './plugins/mask-error.js';
import { useHealth } from './plugins/use-health.js';
import { useRequestScope } from './plugins/use-request-scope.js';
import { resolvers } from './resolvers/index.js';
import { createUpstreamApi } from './upstream/api.js';
import { createUpstreamClient } from './upstream/client.js';
import { isUpstreamError } from './upstream/errors.js';
import { createTokenManager } from './upstream/token-manager.js';

/** The configuration with the upstream settled (main.ts fills it in demo mode). */
export type GatewayConfig = Omit<Config, 'upstream'> & { upstream: UpstreamConfig };

export interface GatewayDependencies {
  logger: Logger;
  /** Time source of the shared cache's TTLs. Default `performance`. */
  clock?: Clock;
}

export interface Gateway {
  yoga: YogaServerInstance<object, GatewayContext>;
  /** Releases upstream connections. The HTTP server, if any, is closed by its owner first. */
  close(): Promise<void>;
}

const TYPE_DEFS = readFileSync(new URL('../schema.graphql', import.meta.url), 'utf8');

export function createGateway(config: GatewayConfig, { logger, clock }: GatewayDependencies): Gateway {
  const { upstream } = config;
  const tokens = createTokenManager({
    tokenUrl: upstream.tokenUrl,
    clientId: upstream.clientId,
    clientSecret: upstream.clientSecret,
    scope: upstream.scope,
    clientAuth: upstream.clientAuth,
    timeoutMs: config.tokenTimeoutMs,
    logger,
  });
  const client = createUpstreamClient({
    baseUrl: upstream.baseUrl,
    timeoutMs: config.upstreamTimeoutMs,
    retries: config.upstreamRetries,
    maxConcurrency: config.upstreamMaxConcurrency,
    maxQueue: config.upstreamMaxQueue,
    breakerCooldownMs: config.upstreamBreakerCooldownMs,
    tokens,
    logger,
  });
  const cache = createLruCache({
    maxEntries: config.cacheMaxEntries,
    staleWhileRevalidateMs: config.cacheStaleWhileRevalidateS * 1000,
    staleIfErrorMs: config.cacheStaleIfErrorS * 1000,
    ...(clock ? { clock } : {}),
    onBackgroundError: (key, error) => logger.warn({ key, code: codeOf(error) }, 'background refresh failed'),
  });
  const sources = createSources(createUpstreamApi(client, logger), cache, {
    citiesMs: config.cacheTtlCitiesS * 1000,
    sitesMs: config.cacheTtlSitesS * 1000,
    productsMs: config.cacheTtlProductsS * 1000,
  });

  const yoga = createYoga<object, GatewayContext>({
    schema: createSchema<GatewayContext>({ typeDefs: TYPE_DEFS, resolvers }),
    context: createContextFactory(sources, config),
    maskedErrors: { maskError },
    logging: yogaLogger(logger),
    graphiql: { title: 'vending-graph', defaultQuery: EXAMPLE_QUERY },
    landingPage: false,
    plugins: [useHealth(tokens), useRequestScope()],
  });

  return {
    yoga,
    async close() {
      await client.close();
      await tokens.close();
    },
  };
}

function codeOf(error: unknown): string {
  return isUpstreamError(error) ? error.code : 'INTERNAL_SERVER_ERROR';
}

// Private: yoga's logger interface over pino.
function yogaLogger(logger: Logger) {
  const forward =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (first: unknown, ...rest: unknown[]) => {
      if (first instanceof Error) logger[level]({ err: first }, first.message);
      else logger[level](rest.length > 0 ? { details: rest } : {}, String(first));
    };
  return { debug: forward('debug'), info: forward('info'), warn: forward('warn'), error: forward('error') };
}
