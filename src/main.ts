/** The entry point: env → config → gateway → listen; SIGTERM/SIGINT drain, SIGHUP reloads persisted documents. */
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from './base/config/config.js';
import { startDemoUpstream } from './app/demo.js';
import { createGateway } from './app/gateway.js';
import { endpointLine, startupSummary } from './base/config/summary.js';
import { createLogger, type Logger } from './base/logger.js';
import { ROUTES } from './admission/routes.js';
import { listen } from './doors/http/server.js';
import { attachWebSocket } from './doors/ws/websocket.js';

/** The example page's build (dist/web beside the built main.js), served in demo mode. */
const DEMO_PAGE_DIRECTORY = fileURLToPath(new URL('web', import.meta.url));

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const format = config.logFormat === 'auto' ? (process.stdout.isTTY ? 'pretty' : 'json') : config.logFormat;
  const logger = createLogger(config.logLevel, undefined, { traceIds: config.tracing !== undefined, format });
  const demo = config.upstream === undefined ? await startDemoUpstream({ latencyMs: config.demoLatencyMs, salesPerMinute: config.demoSalesPerMinute }) : undefined;
  const upstream = config.upstream ?? demo!.upstream;
  const gateway = createGateway({ ...config, upstream }, { logger, demoPageDirectory: demo ? DEMO_PAGE_DIRECTORY : undefined });
  const server = await listen(gateway.serve, { ...config, arrive: gateway.arrive, admit: gateway.admitBody, onError: (err) => logger.error({ err }, 'request handler failed') })
    .catch((error: unknown) => exitOnListenFailure(error, config, logger));
  const websocket = attachWebSocket(server.server, gateway, config, { logger });
  const endpoint = `${server.url}${ROUTES.graphql}`;
  const summary = startupSummary(config, upstream.baseUrl, { endpoint, port: Number(new URL(server.url).port) });
  logger.info(summary.fields, summary.message);
  logger.info({ url: endpoint, graphiql: config.graphiql }, endpointLine(config, endpoint));
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

/** A port in use or refused is one line that says what to do, and exit code 1; anything else throws on. */
function exitOnListenFailure(error: unknown, config: { port: number; host: string }, logger: Logger): never {
  const code = (error as { code?: unknown }).code;
  const hints: Record<string, string> = {
    EADDRINUSE: `port ${config.port} is in use: set PORT to a free port or stop the other process`,
    EACCES: `port ${config.port} needs privileges this process lacks: set PORT to 1024 or above`,
    EADDRNOTAVAIL: `HOST ${config.host} is not an address of this machine: set HOST to one of its addresses or 0.0.0.0`,
  };
  if (typeof code !== 'string' || hints[code] === undefined) throw error;
  logger.fatal({ code, port: config.port, host: config.host }, hints[code]);
  process.exit(1);
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
