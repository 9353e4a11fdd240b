import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/base/config/config.js';
import { problemsOf } from '../../../helpers/config.js';


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
      maxDecodingBytes: 33_554_432,
      responseCacheMaxBytes: 33_554_432,
      compression: true,
      compressionMinBytes: 1024,
      executionCompiled: true,
      maxQueryBytes: 32_768,
      maxVariablesBytes: 16_384,
      apiKeys: [],
      adminApiKeys: [],
      rateLimitPerMinute: 0,
      logLevel: 'info',
      logFormat: 'auto',
      requestLogSamplePercent: 100,
      requestLogSlowMs: 1000,
      demoLatencyMs: 5,
      demoSalesPerMinute: 60,
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
      live: { pollS: 10, maxSubscriptions: 10_000, maxSubscriptionsPerClient: 100, maxWatchedKeys: 2000, maxWatchedKeysPerClient: 200 },
      webSocket: { maxOperationsPerSocket: 100, maxBufferedBytes: 4_194_304, maxSocketsPerClient: 20 },
    });
  });

  it('sells 60 items a minute at each demo site by default, none with a real upstream, and reads DEMO_SALES_PER_MINUTE', () => {
    expect(loadConfig({}).demoSalesPerMinute).toBe(60);
    expect(loadConfig(UPSTREAM).demoSalesPerMinute).toBe(0);
    expect(loadConfig({ DEMO_SALES_PER_MINUTE: '0' }).demoSalesPerMinute).toBe(0);
    expect(loadConfig({ DEMO_SALES_PER_MINUTE: '600' }).demoSalesPerMinute).toBe(600);
    expect(problemsOf({ DEMO_SALES_PER_MINUTE: '-1' })).toEqual([expect.stringContaining('DEMO_SALES_PER_MINUTE')]);
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
      .toMatchObject({ pollS: 0.5, maxSubscriptions: 20, maxSubscriptionsPerClient: 3 });
    expect(problemsOf({ LIVE_POLL_S: '0', LIVE_MAX_SUBSCRIPTIONS: 'many', LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT: '-1' })).toEqual([
      'LIVE_POLL_S must be a number from 0.1 to 3600, but got: "0"',
      'LIVE_MAX_SUBSCRIPTIONS must be an integer from 1 to 1000000, but got: "many"',
      'LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT must be an integer from 1 to 1000000, but got: "-1"',
    ]);
  });

  it('reads the limits of watched keys and of WebSocket sockets, and reports bad ones together', () => {
    expect(loadConfig({ LIVE_MAX_WATCHED_KEYS: '50', LIVE_MAX_WATCHED_KEYS_PER_CLIENT: '5' }).live)
      .toMatchObject({ maxWatchedKeys: 50, maxWatchedKeysPerClient: 5 });
    expect(loadConfig({ WS_MAX_OPERATIONS_PER_SOCKET: '3', WS_MAX_BUFFERED_BYTES: '65536', WS_MAX_SOCKETS_PER_CLIENT: '2' }).webSocket)
      .toEqual({ maxOperationsPerSocket: 3, maxBufferedBytes: 65_536, maxSocketsPerClient: 2 });
    expect(problemsOf({ LIVE_MAX_WATCHED_KEYS: '0', WS_MAX_BUFFERED_BYTES: '1024', WS_MAX_SOCKETS_PER_CLIENT: 'x' })).toEqual([
      expect.stringContaining('LIVE_MAX_WATCHED_KEYS must be'),
      expect.stringContaining('WS_MAX_BUFFERED_BYTES must be'),
      expect.stringContaining('WS_MAX_SOCKETS_PER_CLIENT must be'),
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
      LOG_FORMAT: 'colour',
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
      'LOG_FORMAT',
    ]) {
      expect(message).toContain(name);
    }
    expect(message).toContain('but got: "eighty"');
    expect(problemsOf(env)).toHaveLength(11);
  });

  it('requires the token endpoint and credentials when an upstream is set', () => {
    expect(problemsOf({ UPSTREAM_BASE_URL: 'https://open.example.com' })).toEqual([
      'OAUTH_TOKEN_URL is required when UPSTREAM_BASE_URL is set',
      'OAUTH_CLIENT_ID is required when UPSTREAM_BASE_URL is set',
      'OAUTH_CLIENT_SECRET is required when UPSTREAM_BASE_URL is set',
    ]);
  });

  it('reads ADMIN_API_KEYS apart from the client keys, and refuses an admin key that is also a client key without echoing it', () => {
    const admin = 'admin-key-for-purging-0001';
    expect(loadConfig({ ADMIN_API_KEYS: admin, GATEWAY_API_KEYS: 'client-key-for-apps-0001' }).adminApiKeys).toEqual([admin]);
    const problems = problemsOf({ ADMIN_API_KEYS: admin, GATEWAY_API_KEYS: `client-key-for-apps-0001,${admin}` });
    expect(problems).toEqual(['ADMIN_API_KEYS must not repeat a key of GATEWAY_API_KEYS: a client key must never purge']);
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
    expect(loadConfig({ REDIS_URL: 'rediss://:pa55word@redis.internal:6380/2', REDIS_FILL_WAIT_MS: '500', REDIS_RESPONSE_CACHE_MAX_BYTES: '1048576' }).redis).toEqual({
      topology: { kind: 'single', url: 'rediss://:pa55word@redis.internal:6380/2', tls: { ca: undefined } },
      commandTimeoutMs: 1000,
      fillWaitMs: 500,
      answersMaxBytes: 1_048_576,
    });
    const problems = problemsOf({ REDIS_URL: 'http://:pa55word@redis.internal', REDIS_COMMAND_TIMEOUT_MS: '0' });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toContain('REDIS_URL must be a redis:// or rediss:// URL');
    expect(problems.join('\n')).not.toContain('pa55word');
  });

  it('reads Redis Sentinel: the sentinels (IPv6 in brackets), the primary\'s group name, and the passwords', () => {
    expect(loadConfig({
      REDIS_SENTINELS: 'sentinel-0.redis:26379, 10.0.0.7:26380,[fd00::7]:26381,',
      REDIS_SENTINEL_NAME: 'mymaster',
      REDIS_PASSWORD: 'data-pa55word',
      REDIS_SENTINEL_PASSWORD: 'sentinel-pa55word',
      REDIS_COMMAND_TIMEOUT_MS: '700',
    }).redis).toEqual({
      topology: {
        kind: 'sentinel',
        sentinels: [{ host: 'sentinel-0.redis', port: 26379 }, { host: '10.0.0.7', port: 26380 }, { host: 'fd00::7', port: 26381 }],
        name: 'mymaster',
        sentinelPassword: 'sentinel-pa55word',
        username: undefined,
        password: 'data-pa55word',
      },
      commandTimeoutMs: 700,
      fillWaitMs: 2000,
      answersMaxBytes: 67_108_864,
    });
  });

  it('reads Redis Cluster: the seed nodes, and an ACL user for the data nodes', () => {
    expect(loadConfig({ REDIS_CLUSTER_NODES: 'redis-0:7000,redis-1:7001', REDIS_USERNAME: 'gateway', REDIS_PASSWORD: 'pa55word' }).redis?.topology).toEqual({
      kind: 'cluster',
      nodes: [{ host: 'redis-0', port: 7000 }, { host: 'redis-1', port: 7001 }],
      username: 'gateway',
      password: 'pa55word',
    });
  });

  it('takes one Redis topology, and says so in one problem when several are set', () => {
    expect(problemsOf({ REDIS_URL: 'redis://:pa55word@redis:6379', REDIS_CLUSTER_NODES: 'redis-0:7000' })).toEqual([
      'Set one Redis topology: REDIS_URL (one server), REDIS_SENTINELS (Sentinel) or REDIS_CLUSTER_NODES (Cluster), but REDIS_URL, REDIS_CLUSTER_NODES are set',
    ]);
    expect(problemsOf({ REDIS_URL: 'redis://redis', REDIS_SENTINELS: 'a:1', REDIS_SENTINEL_NAME: 'm', REDIS_CLUSTER_NODES: 'b:2' })).toHaveLength(1);
  });

  it('asks for REDIS_SENTINEL_NAME with REDIS_SENTINELS, and refuses the Sentinel variables without it', () => {
    expect(problemsOf({ REDIS_SENTINELS: 'sentinel:26379' })).toEqual([
      'REDIS_SENTINEL_NAME is required with REDIS_SENTINELS: the name of the primary\'s group in the sentinels\' configuration (sentinel monitor <name> …), e.g. mymaster',
    ]);
    expect(problemsOf({ REDIS_URL: 'redis://redis', REDIS_SENTINEL_NAME: 'mymaster', REDIS_SENTINEL_PASSWORD: 'pa55word' })).toEqual([
      'REDIS_SENTINEL_NAME is set, but REDIS_SENTINELS is not: it only applies to Redis Sentinel',
      'REDIS_SENTINEL_PASSWORD is set, but REDIS_SENTINELS is not: it only applies to Redis Sentinel',
    ]);
  });

  it('refuses a host:port list with a malformed entry, naming it unless it may hold a password', () => {
    const listProblem = (value: string) => problemsOf({ REDIS_CLUSTER_NODES: value });
    const prefix = 'REDIS_CLUSTER_NODES must be comma-separated host:port addresses, e.g. redis-0.redis:6379,10.0.0.7:6379,[fd00::7]:6379 '
      + '(IPv6 in brackets; credentials go in REDIS_USERNAME and REDIS_PASSWORD), but got: ';
    expect(listProblem('redis-0:7000,redis-1,redis-2:0,redis-3:65536')).toEqual([`${prefix}"redis-1", "redis-2:0", "redis-3:65536"`]);
    expect(listProblem('fd00::7:6379,[fd00::7]:6379,[nonsense]:6379')).toEqual([`${prefix}"fd00::7:6379", "[nonsense]:6379"`]);
    expect(listProblem('redis-0:7000 redis-1:7001,-bad-:1')).toEqual([`${prefix}"redis-0:7000 redis-1:7001", "-bad-:1"`]);
    expect(listProblem(' , ')).toEqual([`${prefix}no address`]);
    const withPassword = problemsOf({ REDIS_SENTINELS: 'redis://:pa55word@sentinel:26379', REDIS_SENTINEL_NAME: 'mymaster' });
    expect(withPassword).toEqual([expect.stringContaining('REDIS_SENTINELS must be comma-separated host:port addresses')]);
    expect(withPassword[0]).toContain('(an entry not shown: it may hold a password)');
    expect(withPassword[0]).not.toContain('pa55word');
  });

  it('reads REDIS_TLS for Sentinel and Cluster, and REDIS_TLS_CA_FILE for any topology over TLS', () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';
    const dir = mkdtempSync(join(tmpdir(), 'vg-config-'));
    const caFile = join(dir, 'ca.crt');
    writeFileSync(caFile, pem);
    const tlsOf = (env: Record<string, string>) => loadConfig(env).redis?.topology.tls;
    expect(tlsOf({ REDIS_CLUSTER_NODES: 'redis-0:7000' })).toBeUndefined();
    expect(tlsOf({ REDIS_CLUSTER_NODES: 'redis-0:7000', REDIS_TLS: 'true' })).toEqual({ ca: undefined });
    expect(tlsOf({ REDIS_SENTINELS: 'sentinel:26379', REDIS_SENTINEL_NAME: 'mymaster', REDIS_TLS: '1', REDIS_TLS_CA_FILE: caFile })).toEqual({ ca: pem });
    expect(tlsOf({ REDIS_URL: 'rediss://redis:6380', REDIS_TLS_CA_FILE: caFile })).toEqual({ ca: pem });
    rmSync(dir, { recursive: true });
  });

  it('refuses REDIS_TLS with REDIS_URL or alone, a CA file without TLS, and a CA file that holds no certificate', () => {
    expect(problemsOf({ REDIS_URL: 'redis://redis:6379', REDIS_TLS: 'true' })).toEqual([
      'REDIS_TLS applies to REDIS_SENTINELS and REDIS_CLUSTER_NODES; with REDIS_URL, use a rediss:// URL',
    ]);
    expect(problemsOf({ REDIS_TLS: 'true' })).toEqual(['REDIS_TLS applies to REDIS_SENTINELS and REDIS_CLUSTER_NODES, but neither is set']);
    const dir = mkdtempSync(join(tmpdir(), 'vg-config-'));
    expect(problemsOf({ REDIS_URL: 'redis://redis:6379', REDIS_TLS_CA_FILE: join(dir, 'ca.crt') })).toEqual([
      'REDIS_TLS_CA_FILE is set, but Redis is not reached over TLS: set REDIS_TLS=true (Sentinel, Cluster) or use a rediss:// URL',
    ]);
    expect(problemsOf({ REDIS_CLUSTER_NODES: 'redis-0:7000', REDIS_TLS: 'true', REDIS_TLS_CA_FILE: join(dir, 'missing.crt') })).toEqual([
      `REDIS_TLS_CA_FILE must be a readable file of PEM certificates, but ${JSON.stringify(join(dir, 'missing.crt'))} cannot be read (ENOENT)`,
    ]);
    writeFileSync(join(dir, 'key.pem'), '-----BEGIN PRIVATE KEY-----\n');
    expect(problemsOf({ REDIS_CLUSTER_NODES: 'redis-0:7000', REDIS_TLS: 'true', REDIS_TLS_CA_FILE: join(dir, 'key.pem') })).toEqual([
      `REDIS_TLS_CA_FILE must be a readable file of PEM certificates, but ${JSON.stringify(join(dir, 'key.pem'))} holds none`,
    ]);
    rmSync(dir, { recursive: true });
  });

  it('takes REDIS_USERNAME and REDIS_PASSWORD for Sentinel and Cluster only, a user with its password, and never echoes them', () => {
    expect(problemsOf({ REDIS_URL: 'redis://redis:6379', REDIS_PASSWORD: 'pa55word' })).toEqual([
      'REDIS_PASSWORD applies to REDIS_SENTINELS and REDIS_CLUSTER_NODES; with REDIS_URL, put the credentials in the URL (redis://user:password@host:port)',
    ]);
    expect(problemsOf({ REDIS_CLUSTER_NODES: 'redis-0:7000', REDIS_USERNAME: 'gateway' })).toEqual([
      'REDIS_USERNAME needs REDIS_PASSWORD: Redis authenticates a user by its password',
    ]);
    expect(problemsOf({ REDIS_USERNAME: 'gateway', REDIS_PASSWORD: 'pa55word' })).toEqual([
      'REDIS_USERNAME and REDIS_PASSWORD apply to REDIS_SENTINELS and REDIS_CLUSTER_NODES, but neither is set',
    ]);
  });

  it('reads TRUST_PROXY as a hop count or addresses and CIDR ranges, IPv6 too; unset, X-Forwarded-For is ignored', () => {
    expect(loadConfig({}).trustProxy).toBeUndefined();
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toEqual({ hops: 1 });
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toEqual({ hops: 0 });
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,fd00::/8,::1' }).trustProxy).toEqual({
      addresses: ['10.0.0.0/8', '127.0.0.1', 'fd00::/8', '::1'],
    });
  });

  it('refuses a TRUST_PROXY that is neither, naming the entries it cannot read', () => {
    expect(problemsOf({ TRUST_PROXY: '10.0.0.0/33,127.0.0.1,proxy' })).toEqual([
      'TRUST_PROXY must be a number of proxies from 0 to 100 or comma-separated proxy addresses and CIDR ranges '
        + '(e.g. 1, or 10.0.0.0/8,127.0.0.1,fd00::/8), but got: "10.0.0.0/33,127.0.0.1,proxy" (not an address or range: "10.0.0.0/33", "proxy")',
    ]);
    expect(problemsOf({ TRUST_PROXY: '101' })[0]).toContain('TRUST_PROXY must be a number of proxies from 0 to 100');
    expect(problemsOf({ TRUST_PROXY: 'true' })[0]).toContain('but got: "true"');
    expect(problemsOf({ TRUST_PROXY: '::1/129', PORT: 'x' })).toHaveLength(2);
  });
});
