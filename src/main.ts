/** The entry point: env → config → gateway → listen; SIGTERM/SIGINT drain, SIGHUP reloads persisted documents. */
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from './base/config/config.js';
import { startDemoUpstream } from './app/demo.js';
import { createGateway } from './app/gateway.js';
import { createLogger } from './base/logger.js';
import { ROUTES } from './admission/routes.js';
import { listen } from './doors/http/server.js';
import { attachWebSocket } from './doors/ws/websocket.js';

/** The example page's build (dist/web beside the built main.js), served in demo mode. */
const DEMO_PAGE_DIRECTORY = fileURLToPath(new URL('web', import.meta.url));

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel, undefined, { traceIds: config.tracing !== undefined });
  const demo = config.upstream === undefined ? await startDemoUpstream({ latencyMs: config.demoLatencyMs, salesPerMinute: config.demoSalesPerMinute }) : undefined;
  if (demo) logger.info({ upstream: demo.url }, 'demo mode: no UPSTREAM_BASE_URL, serving the built-in mock upstream');
  const upstream = config.upstream ?? demo!.upstream;
  const gateway = createGateway({ ...config, upstream }, { logger, demoPageDirectory: demo ? DEMO_PAGE_DIRECTORY : undefined });
  const server = await listen(gateway.serve, { ...config, arrive: gateway.arrive, admit: gateway.admitBody, onError: (err) => logger.error({ err }, 'request handler failed') });
  const websocket = attachWebSocket(server.server, gateway, config, { logger });
  logger.info({ url: `${server.url}${ROUTES.graphql}`, demo: demo !== undefined }, `GraphiQL at ${server.url}${ROUTES.graphql}`);
  if (demo) logger.info({ url: `${server.url}${ROUTES.demo}/` }, `example page at ${server.url}${ROUTES.demo}/`);

  // Background work catches its own failures; anything that slips through is logged, not fatal.
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));

  const stop = async (signal: string) => {
    logger.info({ signal, graceMs: config.shutdownGraceMs }, 'stopping: no new connections, finishing in-flight requests');
    gateway.drain();
    // Live subscriptions end first, then WebSocket sockets (the HTTP server's close would not end them).
    gateway.live.close();
    await websocket.close();
    await server.close(config.shutdownGraceMs);
    await gateway.close();
    await demo?.close();
    process.exit(0);
  };
  process.once('SIGTERM', (signal) => void stop(signal));
  // Without the persisted documents file, SIGHUP keeps Node's default (the process ends).
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
