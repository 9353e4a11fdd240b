/**
 * The entry point: configuration from the environment, the mock upstream in demo mode, the
 * gateway, the HTTP server, a clean stop on SIGTERM/SIGINT, and the persisted documents read
 * again on SIGHUP.
 */
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from './base/config/config.js';
import { startDemoUpstream } from './app/demo.js';
import { createGateway } from './app/gateway.js';
import { createLogger } from './base/logger.js';
import { ROUTES } from './edge/routes.js';
import { listen } from './edge/server.js';
import { attachWebSocket } from './edge/ws/websocket.js';

/** The example page's build, served at /demo in demo mode: dist/web, beside the built main.js. */
const DEMO_PAGE_DIRECTORY = fileURLToPath(new URL('web', import.meta.url));

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel, undefined, { traceIds: config.tracing !== undefined });
  const demo = config.upstream === undefined ? await startDemoUpstream({ latencyMs: config.demoLatencyMs, salesPerMinute: config.demoSalesPerMinute }) : undefined;
  if (demo) logger.info({ upstream: demo.url }, 'demo mode: no UPSTREAM_BASE_URL, serving the built-in mock upstream');
  const upstream = config.upstream ?? demo!.upstream;
  const gateway = createGateway({ ...config, upstream }, { logger, demoPageDirectory: demo ? DEMO_PAGE_DIRECTORY : undefined });
  // The API key and the rate limit decide before a request's body is read (edge/body.ts).
  const server = await listen(gateway.serve, { ...config, admit: gateway.admitBody, onError: (err) => logger.error({ err }, 'request handler failed') });
  // GraphQL over WebSocket (graphql-ws) on the same server and path.
  const websocket = attachWebSocket(server.server, gateway, config, { logger });
  logger.info({ url: `${server.url}${ROUTES.graphql}`, demo: demo !== undefined }, `GraphiQL at ${server.url}${ROUTES.graphql}`);
  if (demo) logger.info({ url: `${server.url}${ROUTES.demo}/` }, `example page at ${server.url}${ROUTES.demo}/`);

  // Background work catches its own failures; anything that slips through is logged, not fatal.
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));

  const stop = async (signal: string) => {
    logger.info({ signal, graceMs: config.shutdownGraceMs }, 'stopping: no new connections, finishing in-flight requests');
    // /readyz answers 503 from now on, to a probe on a connection kept alive.
    gateway.drain();
    // Live subscriptions first: SSE clients are sent `complete`, WebSocket clients theirs, before
    // the sockets close. Then WebSocket clients, with 1001 "going away": the HTTP server's close
    // would not end their sockets.
    gateway.live.close();
    await websocket.close();
    await server.close(config.shutdownGraceMs);
    await gateway.close();
    await demo?.close();
    process.exit(0);
  };
  process.once('SIGTERM', (signal) => void stop(signal));
  // SIGHUP reads the persisted documents file again (README "Persisted documents"); without the
  // file, SIGHUP keeps Node's default (the process ends).
  if (config.persistedOperations) process.on('SIGHUP', () => void gateway.reloadPersisted());
  process.once('SIGINT', (signal) => void stop(signal));
}

function loadConfigOrExit() {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
