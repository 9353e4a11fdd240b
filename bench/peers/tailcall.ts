/**
 * Tailcall 1.6 (a GraphQL runtime in Rust) as a peer: installed from its own package.json on
 * first use (see `tailcall-install.ts`, which also brings a newer glibc where the host's is too
 * old), configured by `tailcall/vending.graphql` (the seven operations, the envelope unwrapped,
 * `CargoLane.product` through product detail, `dedupe` and `@cache` on every call, the bearer
 * token in a header), served pinned to the system-under-test core.
 *
 * The schema is shaped so that the gateway's own queries for the bench's scenarios run on it
 * unchanged and answer `data` of the same shape and values: one data checker serves both.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SUT_CORE } from '../config.js';
import { freePort, graphqlPeerAt, pinned, type RunningProcess } from '../processes/child.js';
import type { GraphQLRequest } from '../workloads/queries.js';
import { TAILCALL_DIR, privateGlibcVersion, tailcallCommand } from './tailcall-install.js';

export { ensureTailcallInstalled, type InstallOutcome } from './tailcall-install.js';

/**
 * Tokio worker threads. Tailcall's default is one per core it may use; it runs pinned to one
 * core, so one worker, said outright rather than left to how `num_cpus` reads the affinity mask.
 */
const WORKERS = 1;

/**
 * Start Tailcall over `upstreamUrl` with `token` as its bearer token, and wait until it answers
 * `{ __typename }`. The runtime config (server and upstream settings, which name the port) is
 * written to a temporary folder, removed when the process exits.
 */
export async function startTailcall(upstreamUrl: string, token: string): Promise<RunningProcess> {
  const port = await freePort();
  const configDir = mkdtempSync(join(tmpdir(), 'tailcall-config-'));
  const configFile = join(configDir, 'tailcall.yml');
  writeFileSync(configFile, runtimeConfig(port));
  const [command, args] = pinned(SUT_CORE, ...tailcallCommand(['start', configFile]));
  const child = spawn(command, args, {
    cwd: TAILCALL_DIR,
    env: {
      ...process.env,
      UPSTREAM_BASE_URL: upstreamUrl.replace(/\/+$/, ''),
      UPSTREAM_TOKEN: token,
      // Usage tracking off: it would send events from the process under measurement.
      TC_TRACKER: 'false',
      // Warnings and errors only, as deployed; `BENCH_TAILCALL_LOG_LEVEL=info` to see its start-up.
      TC_LOG_LEVEL: process.env.BENCH_TAILCALL_LOG_LEVEL ?? 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  child.once('exit', () => rmSync(configDir, { recursive: true, force: true }));
  return graphqlPeerAt(child, port);
}

/** Versions of what actually runs, for the results. */
export function tailcallVersions(): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(TAILCALL_DIR, 'node_modules/@tailcallhq/core-linux-x64-gnu/package.json'), 'utf8')) as { version?: string };
  const [command, args] = tailcallCommand(['--version']);
  const reported = spawnSync(command, args, { encoding: 'utf8' }).stdout?.trim();
  return {
    '@tailcallhq/core-linux-x64-gnu': pkg.version ?? 'unknown',
    tailcall: reported || 'unknown',
    glibc: privateGlibcVersion() ?? 'the host\'s',
  };
}

/** The bench's scenarios that Tailcall runs. */
export type TailcallScenario = 'small' | 'site' | 'cities' | 'deep';

/** Variables of each scenario, as the gateway's query takes them. */
export interface TailcallVariables {
  small: { goodsCode: string };
  site: { code: string };
  cities: { page: number; pageSize: number };
  deep: { page: number; pageSize: number };
}

/**
 * The request for `scenario` spelled for Tailcall's schema. The schema names its fields as the
 * gateway's contract does (`cargoLanes` through `@modify`, the envelope unwrapped, a detail
 * lane's price read from its product), so these are the gateway's own queries, word for word,
 * and the answers' `data` compare with `isDeepStrictEqual`.
 */
export function tailcallQuery<S extends TailcallScenario>(scenario: S, variables: TailcallVariables[S]): GraphQLRequest {
  return { query: QUERIES[scenario], variables: { ...variables } };
}

const LANES = 'cargoLanes { stock guidePrice product { goodsCode productName ipName guidePrice } }';
const QUERIES: Record<TailcallScenario, string> = {
  small: 'query Small($goodsCode: String!) { product(goodsCode: $goodsCode) { productName ipName guidePrice } }',
  site: `query Site($code: String!) { site(code: $code) { code name points { code name ${LANES} } } }`,
  cities: 'query Cities($page: Int!, $pageSize: Int!) { cities(page: $page, pageSize: $pageSize) { items { code name } } }',
  deep: `query Deep($page: Int!, $pageSize: Int!) { sites(page: $page, pageSize: $pageSize) { items { code name points { code name ${LANES} } } } }`,
};

// Private: the runtime config. Everything not named is Tailcall's default: no query validation
// (the bench sends valid queries), no response validation, HTTP/1.1; `@cache` (in the schema)
// rather than `httpCache`, since the upstream sends no Cache-Control for RFC 7234 caching to
// act on.
//
// Why `poolIdleTimeout: 4`: Tailcall keeps an idle upstream connection 60 s by default, and a
// Node upstream (the mock, and most) closes it after 5 s; reusing one just as it closes fails
// the call ("connection closed before message completed"). Under the upstream's keep-alive
// time, the pool drops it first.
function runtimeConfig(port: number): string {
  return [
    'server:',
    '  hostname: 127.0.0.1',
    `  port: ${port}`,
    `  workers: ${WORKERS}`,
    'upstream:',
    '  poolIdleTimeout: 4',
    'links:',
    `  - src: ${JSON.stringify(join(TAILCALL_DIR, 'vending.graphql'))}`,
    '',
  ].join('\n');
}
