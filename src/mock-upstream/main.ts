/**
 * Standalone mock upstream for demo mode and benchmarks (`npm run mock-upstream`), configured by
 * its own `MOCK_*` variables only: `MOCK_PORT` (default 4010), `MOCK_HOST` (default 127.0.0.1),
 * `MOCK_LATENCY_MS` (0), `MOCK_MAX_PAGE_SIZE` (50), `MOCK_TOKEN_LIFETIME_S` (7200), and the catalog
 * (defaults as `generateCatalog`): `MOCK_SEED`, `MOCK_CITIES`, `MOCK_SITES`, `MOCK_POINTS_PER_SITE`,
 * `MOCK_LANES_PER_POINT`, `MOCK_PRODUCTS`.
 */
import { createMockUpstream, type MockUpstreamOptions } from './server.js';

const NUMBER_VARIABLES = [
  'MOCK_PORT', 'MOCK_SEED', 'MOCK_CITIES', 'MOCK_SITES', 'MOCK_POINTS_PER_SITE', 'MOCK_LANES_PER_POINT',
  'MOCK_PRODUCTS', 'MOCK_LATENCY_MS', 'MOCK_MAX_PAGE_SIZE', 'MOCK_TOKEN_LIFETIME_S',
] as const;

type NumberVariable = (typeof NUMBER_VARIABLES)[number];

// Private: every numeric variable parsed, with all problems reported together.
function readNumbers(env: NodeJS.ProcessEnv): Partial<Record<NumberVariable, number>> {
  const values: Partial<Record<NumberVariable, number>> = {};
  const problems: string[] = [];
  for (const name of NUMBER_VARIABLES) {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') continue;
    const value = Number(raw);
    if (Number.isInteger(value) && value >= 0) values[name] = value;
    else problems.push(`${name} must be an integer >= 0, but got: ${JSON.stringify(raw)}`);
  }
  if (problems.length > 0) throw new Error(`mock upstream: invalid environment:\n  ${problems.join('\n  ')}`);
  return values;
}

// Private: mock options from the environment.
function optionsFromEnv(env: NodeJS.ProcessEnv): MockUpstreamOptions {
  const n = readNumbers(env);
  return {
    port: n.MOCK_PORT ?? 4010,
    host: env.MOCK_HOST || '127.0.0.1',
    catalog: {
      seed: n.MOCK_SEED,
      cities: n.MOCK_CITIES,
      sites: n.MOCK_SITES,
      pointsPerSite: n.MOCK_POINTS_PER_SITE,
      lanesPerPoint: n.MOCK_LANES_PER_POINT,
      products: n.MOCK_PRODUCTS,
    },
    latencyMs: n.MOCK_LATENCY_MS,
    tokenLifetimeS: n.MOCK_TOKEN_LIFETIME_S,
    behaviour: n.MOCK_MAX_PAGE_SIZE === undefined ? {} : { maxPageSize: n.MOCK_MAX_PAGE_SIZE },
  };
}

async function main(): Promise<void> {
  const mock = await createMockUpstream(optionsFromEnv(process.env));
  const { sites, products } = mock.catalog;
  process.stdout.write([
    `mock upstream listening on ${mock.url} (${sites.length} sites, ${products.length} products)`,
    `  token URL:     ${mock.tokenUrl}`,
    `  client id:     ${mock.clientId}`,
    `  client secret: ${mock.clientSecret}`,
    'point the gateway at it with:',
    `  UPSTREAM_BASE_URL=${mock.url} OAUTH_TOKEN_URL=${mock.tokenUrl} OAUTH_CLIENT_ID=${mock.clientId} OAUTH_CLIENT_SECRET=${mock.clientSecret}`,
    '',
  ].join('\n'));
  const stop = (signal: NodeJS.Signals): void => {
    console.error(`mock upstream: ${signal}, closing`);
    mock.close().then(() => process.exit(0), (error: unknown) => {
      console.error(error);
      process.exit(1);
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
