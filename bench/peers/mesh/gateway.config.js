/**
 * Hive Gateway serving the composed supergraph, configured as a competent user would for a
 * read-only public graph: the response cache on for everyone (`session: () => null`), with the
 * TTL the bench passes (MESH_CACHE_TTL_MS, default 30 s: the gateway's TTL for sites), and the
 * upstream sockets capped (MESH_MAX_SOCKETS, default 32: the gateway's UPSTREAM_MAX_CONCURRENCY).
 *
 * Why the cap is set on `http.globalAgent`: Hive Gateway fetches through @whatwg-node/fetch,
 * which in Node calls `http.request` with no agent of its own, so the global agent decides how
 * many sockets are open. Node's default is unlimited: 32 concurrent deep queries (each one
 * product call per lane) would open thousands of sockets and exhaust file descriptors.
 */
import http from 'node:http';
import process from 'node:process';
import { defineConfig } from '@graphql-hive/gateway';

const maxSockets = Number(process.env.MESH_MAX_SOCKETS ?? 32);
http.globalAgent = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });

export const gatewayConfig = defineConfig({
  supergraph: './supergraph.graphql',
  responseCaching: {
    session: () => null,
    ttl: Number(process.env.MESH_CACHE_TTL_MS ?? 30_000),
  },
  logging: process.env.MESH_LOG_LEVEL ?? 'warn',
});
