import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { problemsOf } from './helpers/config.js';


const UPSTREAM = {
  UPSTREAM_BASE_URL: 'https://open.example.com',
  OAUTH_TOKEN_URL: 'https://auth.example.com/oauth/token',
  OAUTH_CLIENT_ID: 'client',
  OAUTH_CLIENT_SECRET: 's3cr3t-value',
};

describe('configuration', () => {
  it('has documented defaults, and no upstream means demo mode', () => {
    expect(loadConfig({})).toEqual({
      port: 4000,
      host: '0.0.0.0',
      upstream: undefined,
      upstreamTimeoutMs: 10_000,
      upstreamRetries: 2,
      upstreamMaxConcurrency: 32,
      upstreamMaxQueue: 1000,
      upstreamBreakerCooldownMs: 5000,
      tokenTimeoutMs: 5000,
      requestTimeoutMs: 15_000,
      maxPageSize: 100,
      maxUpstreamCallsPerOperation: 100,
      maxItemsPerOperation: 50_000,
      cacheTtlCitiesS: 3600,
      cacheTtlSitesS: 30,
      cacheTtlProductsS: 600,
      cacheMaxEntries: 50_000,
      cacheStaleWhileRevalidateS: 0,
      cacheStaleIfErrorS: 300,
      shutdownGraceMs: 10_000,
      maxRequestBodyBytes: 1_048_576,
      responseCacheMaxBytes: 33_554_432,
      executionCompiled: true,
      maxQueryBytes: 32_768,
      maxVariablesBytes: 16_384,
      apiKeys: [],
      rateLimitPerMinute: 0,
      logLevel: 'info',
      demoLatencyMs: 5,
      maxQueryDepth: 6,
      maxAliases: 15,
      maxQueryTokens: 1000,
      maxDirectives: 50,
      maxQueryCost: 1000,
      exposeQueryLimits: false,
      persistedOperations: undefined,
      csrfPrevention: false,
      corsOrigins: ['*'],
      batchingLimit: 0,
      graphiql: true,
      introspection: true,
      index: { enabled: true, refreshS: undefined, warmOnStart: false },
      siteTimeZone: 'Asia/Shanghai',
      live: { pollS: 10, maxSubscriptions: 10_000, maxSubscriptionsPerClient: 100 },
    });
  });

  it('bounds the query text and the variables apart from the body', () => {
    expect(loadConfig({ MAX_QUERY_BYTES: '4096', MAX_VARIABLES_BYTES: '2048' })).toMatchObject({ maxQueryBytes: 4096, maxVariablesBytes: 2048 });
    expect(problemsOf({ MAX_QUERY_BYTES: '10', MAX_VARIABLES_BYTES: 'lots' }).join('\n')).toMatch(/MAX_QUERY_BYTES[\s\S]*MAX_VARIABLES_BYTES/);
  });

  it('reads the item limit and refuses one below 1 or not a number', () => {
    expect(loadConfig({ MAX_ITEMS_PER_OPERATION: '2000' })).toMatchObject({ maxItemsPerOperation: 2000 });
    expect(problemsOf({ MAX_ITEMS_PER_OPERATION: '0' })).toEqual([expect.stringContaining('MAX_ITEMS_PER_OPERATION')]);
    expect(problemsOf({ MAX_ITEMS_PER_OPERATION: 'many' })).toEqual([expect.stringContaining('MAX_ITEMS_PER_OPERATION')]);
  });

  it('reads the live stock settings, LIVE_POLL_S in decimal seconds, and reports bad ones together', () => {
    expect(loadConfig({ LIVE_POLL_S: '0.5', LIVE_MAX_SUBSCRIPTIONS: '20', LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT: '3' }).live)
      .toEqual({ pollS: 0.5, maxSubscriptions: 20, maxSubscriptionsPerClient: 3 });
    expect(problemsOf({ LIVE_POLL_S: '0', LIVE_MAX_SUBSCRIPTIONS: 'many', LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT: '-1' })).toEqual([
      'LIVE_POLL_S must be a number from 0.1 to 3600, but got: "0"',
      'LIVE_MAX_SUBSCRIPTIONS must be an integer from 1 to 1000000, but got: "many"',
      'LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT must be an integer from 1 to 1000000, but got: "-1"',
    ]);
  });

  it('reads the catalog index settings and checks the sites\' time zone', () => {
    expect(loadConfig({ INDEX_ENABLED: 'false', INDEX_REFRESH_S: '15', INDEX_WARM_ON_START: '1', SITE_TIMEZONE: 'Europe/Paris' }))
      .toMatchObject({ index: { enabled: false, refreshS: 15, warmOnStart: true }, siteTimeZone: 'Europe/Paris' });
    expect(problemsOf({ INDEX_REFRESH_S: '0', INDEX_ENABLED: 'maybe', SITE_TIMEZONE: 'Mars/Olympus_Mons' })).toEqual([
      expect.stringContaining('INDEX_ENABLED'),
      expect.stringContaining('INDEX_REFRESH_S'),
      expect.stringContaining('SITE_TIMEZONE must be an IANA time zone'),
    ]);
  });

  it('turns GraphiQL, introspection and cross-origin calls off by default in production, each back on by its variable', () => {
    expect(loadConfig({ NODE_ENV: 'production' })).toMatchObject({ graphiql: false, introspection: false, corsOrigins: [] });
    expect(loadConfig({ NODE_ENV: 'production', GRAPHIQL: 'true', INTROSPECTION: '1', CORS_ORIGINS: 'https://App.example.com/' }))
      .toMatchObject({ graphiql: true, introspection: true, corsOrigins: ['https://app.example.com'] });
    expect(loadConfig({ CORS_ORIGINS: 'none', CSRF_PREVENTION: 'TRUE', BATCHING_LIMIT: '5' }))
      .toMatchObject({ corsOrigins: [], csrfPrevention: true, batchingLimit: 5 });
    expect(problemsOf({ GRAPHIQL: 'yes', CORS_ORIGINS: 'https://app.example.com/path', MAX_QUERY_DEPTH: '0' })).toHaveLength(3);
  });

  it('reads a full upstream configuration', () => {
    const config = loadConfig({
      ...UPSTREAM,
      UPSTREAM_BASE_URL: 'https://open.example.com/',
      OAUTH_SCOPE: 'read',
      OAUTH_CLIENT_AUTH: 'post',
      PORT: '8080',
      UPSTREAM_TIMEOUT_MS: '2500',
    });
    expect(config.upstream).toEqual({
      baseUrl: 'https://open.example.com',
      tokenUrl: 'https://auth.example.com/oauth/token',
      clientId: 'client',
      clientSecret: 's3cr3t-value',
      scope: 'read',
      clientAuth: 'post',
    });
    expect(config.port).toBe(8080);
    expect(config.upstreamTimeoutMs).toBe(2500);
  });

  it('reports every bad variable, by name, in one message', () => {
    const env = {
      PORT: 'eighty',
      HOST: 'localhost',
      UPSTREAM_BASE_URL: 'not a url',
      OAUTH_TOKEN_URL: 'ftp://auth.example.com/token',
      OAUTH_CLIENT_AUTH: 'digest',
      UPSTREAM_TIMEOUT_MS: '0',
      MAX_PAGE_SIZE: '5000',
      CACHE_TTL_CITIES_S: '-1',
      CACHE_TTL_SITES_S: '1.5',
      CACHE_TTL_PRODUCTS_S: 'ten',
      LOG_LEVEL: 'loud',
    };
    let message = '';
    try {
      loadConfig(env);
    } catch (error) {
      message = (error as Error).message;
    }
    for (const name of [
      'PORT',
      'UPSTREAM_BASE_URL',
      'OAUTH_TOKEN_URL',
      'OAUTH_CLIENT_AUTH',
      'UPSTREAM_TIMEOUT_MS',
      'MAX_PAGE_SIZE',
      'CACHE_TTL_CITIES_S',
      'CACHE_TTL_SITES_S',
      'CACHE_TTL_PRODUCTS_S',
      'LOG_LEVEL',
    ]) {
      expect(message).toContain(name);
    }
    expect(message).toContain('but got: "eighty"');
    expect(problemsOf(env)).toHaveLength(10);
  });

  it('requires the token endpoint and credentials when an upstream is set', () => {
    expect(problemsOf({ UPSTREAM_BASE_URL: 'https://open.example.com' })).toEqual([
      'OAUTH_TOKEN_URL is required when UPSTREAM_BASE_URL is set',
      'OAUTH_CLIENT_ID is required when UPSTREAM_BASE_URL is set',
      'OAUTH_CLIENT_SECRET is required when UPSTREAM_BASE_URL is set',
    ]);
  });

  it('never echoes the client secret or a URL that may hold credentials', () => {
    const problems = problemsOf({
      ...UPSTREAM,
      UPSTREAM_BASE_URL: 'https://user:pa55word@',
      PORT: 'x',
    });
    expect(problems.join('\n')).not.toContain('pa55word');
    expect(problems.join('\n')).not.toContain('s3cr3t-value');
  });

  it('reads REDIS_URL and its tunables, refusing other schemes without echoing the URL', () => {
    expect(loadConfig({}).redis).toBeUndefined();
    expect(loadConfig({ REDIS_URL: 'rediss://:pa55word@redis.internal:6380/2', REDIS_FILL_WAIT_MS: '500' }).redis).toEqual({
      url: 'rediss://:pa55word@redis.internal:6380/2',
      commandTimeoutMs: 1000,
      fillWaitMs: 500,
    });
    const problems = problemsOf({ REDIS_URL: 'http://:pa55word@redis.internal', REDIS_COMMAND_TIMEOUT_MS: '0' });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toContain('REDIS_URL must be a redis:// or rediss:// URL');
    expect(problems.join('\n')).not.toContain('pa55word');
  });
});
