import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/base/config/config.js';
import { endpointLine, startupSummary } from '../../../../src/base/config/summary.js';

const LISTENING = { endpoint: 'http://127.0.0.1:4000/graphql', port: 4000 };
const UPSTREAM = {
  UPSTREAM_BASE_URL: 'https://api.example.com:8443/open',
  OAUTH_TOKEN_URL: 'https://auth.example.com/token',
  OAUTH_CLIENT_ID: 'id',
  OAUTH_CLIENT_SECRET: 'secret-0123456789',
};

describe('the start-up summary', () => {
  it.each([
    ['single', { REDIS_URL: 'redis://:redis-password@redis.internal:6379/0' }],
    ['sentinel', { REDIS_SENTINELS: 'sentinel-a:26379,sentinel-b:26379', REDIS_SENTINEL_NAME: 'mymaster', REDIS_PASSWORD: 'redis-password' }],
    ['cluster', { REDIS_CLUSTER_NODES: 'node-a:7000,node-b:7000', REDIS_PASSWORD: 'redis-password' }],
  ] as const)('names the Redis topology %s and nothing of its address or password', (kind, redis) => {
    const summary = startupSummary(loadConfig({ ...UPSTREAM, ...redis }), UPSTREAM.UPSTREAM_BASE_URL, LISTENING);
    expect(summary.fields).toMatchObject({ mode: 'upstream', upstreamHost: 'api.example.com:8443', redis: kind, purge: false });
    expect(summary.message).toContain(`Redis: ${kind};`);
    const text = JSON.stringify(summary);
    for (const hidden of ['redis-password', 'redis.internal', 'sentinel-a', 'node-a', 'secret-0123456789', '/open']) expect(text).not.toContain(hidden);
  });

  it('says Redis none without a topology', () => {
    expect(startupSummary(loadConfig(UPSTREAM), UPSTREAM.UPSTREAM_BASE_URL, LISTENING).fields.redis).toBe('none');
  });

  it('points to GraphiQL only when it is on', () => {
    expect(endpointLine({ graphiql: true }, LISTENING.endpoint)).toBe('GraphiQL at http://127.0.0.1:4000/graphql');
    expect(endpointLine(loadConfig({ NODE_ENV: 'production' }), LISTENING.endpoint)).toBe('GraphQL endpoint at http://127.0.0.1:4000/graphql (GraphiQL is off; GRAPHIQL=true turns it on)');
  });
});
