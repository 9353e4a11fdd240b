/**
 * What the gateway says when it starts: one line a person reads (mode, upstream host, port,
 * persisted documents, Redis, purge, live polling) and the same as fields for a machine. It names
 * hosts, never a URL's credentials, a Redis URL, a key or a secret.
 */
import type { Config } from './shape.js';

/** Where the gateway listens, as `listen` settled it. */
export interface Listening {
  /** The GraphQL endpoint, e.g. `http://127.0.0.1:4000/graphql`. */
  endpoint: string;
  port: number;
}

export interface StartupSummary {
  message: string;
  fields: {
    mode: 'demo' | 'upstream';
    /** The upstream's `host[:port]`, without user, password, path or query. */
    upstreamHost: string;
    port: number;
    endpoint: string;
    graphiql: boolean;
    /** Documents of the allow-list and their format; `null`: any document runs. */
    persisted: { documents: number; format: string; file: string } | null;
    redis: 'none' | 'single' | 'sentinel' | 'cluster';
    purge: boolean;
    livePollS: number;
  };
}

/** The summary of `config`; `upstreamUrl` is the demo mock's address in demo mode. */
export function startupSummary(config: Config, upstreamUrl: string, listening: Listening): StartupSummary {
  const demo = config.upstream === undefined;
  const list = config.persistedOperations;
  const fields: StartupSummary['fields'] = {
    mode: demo ? 'demo' : 'upstream',
    upstreamHost: new URL(upstreamUrl).host,
    port: listening.port,
    endpoint: listening.endpoint,
    graphiql: config.graphiql,
    persisted: list === undefined ? null : { documents: list.documents.size, format: list.format, file: list.file },
    redis: config.redis?.topology.kind ?? 'none',
    purge: config.adminApiKeys.length > 0,
    livePollS: config.live.pollS,
  };
  const mode = demo ? `demo mode (built-in mock upstream at ${fields.upstreamHost}; set UPSTREAM_BASE_URL for a real one)` : `upstream ${fields.upstreamHost}`;
  const persisted = list === undefined ? 'off (any document runs)'
    : `${list.documents.size} in ${list.format} format from ${list.file} (allow-list: only these run; GraphiQL's and the example page's own queries are refused)`;
  const message = `started on port ${listening.port}: ${mode}; persisted documents: ${persisted}; Redis: ${fields.redis}; `
    + `purge endpoint: ${fields.purge ? 'on' : 'off'}; live stock polled every ${fields.livePollS} s`;
  return { message, fields };
}

/** The line that points to the endpoint: GraphiQL only when it is on. */
export function endpointLine(config: Pick<Config, 'graphiql'>, endpoint: string): string {
  return config.graphiql ? `GraphiQL at ${endpoint}` : `GraphQL endpoint at ${endpoint} (GraphiQL is off; GRAPHIQL=true turns it on)`;
}
