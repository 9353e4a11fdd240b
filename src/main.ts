/**
 * The entry point: configuration from the environment, the mock upstream in demo mode, the
 * gateway, the HTTP server, and a clean stop on SIGTERM/SIGINT.
 */
import { ConfigError, loadConfig, type UpstreamConfig } from './config.js';
import { createGateway } from './gateway.js';
import { createLogger, type Logger } from './logger.js';
import { listen } from './server.js';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel);
  const demo = config.upstream === undefined ? await startDemoUpstream(config.demoLatencyMs, logger) : undefined;
  const upstream = config.upstream ?? demo!.upstream;
  const gateway = createGateway({ ...config, upstream }, { logger });
  const server = await listen(gateway.yoga, config);
  logger.info({ url: `${server.url}/graphql`, demo: demo !== undefined }, `GraphiQL at ${server.url}/graphql`);

  const stop = async (signal: string) => {
    logger.info({ signal }, 'stopping');
    await server.close();
    await gateway.close();
    await demo?.close();
    process.exit(0);
  };
  process.once('SIGTERM', (signal) => void stop(signal));
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

// Private: demo mode, when no UPSTREAM_BASE_URL is set: the project's own mock upstream,
// in-process, with demo data and a few ms of latency. Loaded only in demo mode.
async function startDemoUpstream(latencyMs: number, logger: Logger) {
  const { createMockUpstream } = await import('./mock-upstream/index.js');
  const mock = await createMockUpstream({ latencyMs });
  const upstream: UpstreamConfig = {
    baseUrl: mock.url,
    tokenUrl: mock.tokenUrl,
    clientId: mock.clientId,
    clientSecret: mock.clientSecret,
    scope: undefined,
    clientAuth: 'basic',
  };
  logger.info({ upstream: mock.url }, 'demo mode: no UPSTREAM_BASE_URL, serving the built-in mock upstream');
  return { upstream, close: () => mock.close() };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
