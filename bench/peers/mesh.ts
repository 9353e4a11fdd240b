/**
 * GraphQL Mesh v1 as a peer: installed from its own package.json on first use (so none of its
 * dependencies enter the gateway's), composed from `mesh/openapi.yaml` by Mesh Compose, served
 * by Hive Gateway pinned to the system-under-test core. See `mesh/mesh.config.js` (the
 * lane-to-product link, the token header) and `mesh/gateway.config.js` (response cache,
 * socket cap).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MESH_CACHE_TTL_MS, MESH_DIR, MESH_MAX_SOCKETS, SUT_CORE } from '../config.js';
import { freePort, graphqlPeerAt, pinned, type RunningProcess } from '../processes/child.js';

/** `npm ci` in bench/peers/mesh when its node_modules is missing. */
export function ensureMeshInstalled(): void {
  if (existsSync(join(MESH_DIR, 'node_modules'))) return;
  console.error('bench: installing GraphQL Mesh into bench/peers/mesh (first run only)…');
  run('npm', ['ci', '--prefix', MESH_DIR, '--no-audit', '--no-fund', '--loglevel=error']);
}

/** Compose `supergraph.graphql` from the OpenAPI description (about a second). */
export function composeMesh(): void {
  run(process.execPath, [binOf('@graphql-mesh/compose-cli'), '-o', 'supergraph.graphql'], MESH_DIR);
}

/** Versions of the Mesh packages actually installed, for the results. */
export function meshVersions(): Record<string, string> {
  const names = ['@graphql-hive/gateway', '@graphql-mesh/compose-cli', '@omnigraph/openapi', '@graphql-tools/delegate', 'graphql'];
  return Object.fromEntries(names.map((name) => [name, packageJson(name).version ?? 'unknown']));
}

/**
 * Start Hive Gateway over the composed supergraph, pointed at `upstreamUrl` with `token` as its
 * bearer token, and wait until it answers a query.
 */
export async function startMesh(upstreamUrl: string, token: string): Promise<RunningProcess> {
  const port = await freePort();
  const [command, args] = pinned(SUT_CORE, process.execPath, [binOf('@graphql-hive/gateway'), 'supergraph', './supergraph.graphql', '--host', '127.0.0.1', '--port', String(port)]);
  const child = spawn(command, args, {
    cwd: MESH_DIR,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      UPSTREAM_BASE_URL: upstreamUrl,
      UPSTREAM_TOKEN: token,
      MESH_MAX_SOCKETS: String(MESH_MAX_SOCKETS),
      MESH_CACHE_TTL_MS: String(MESH_CACHE_TTL_MS),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return graphqlPeerAt(child, port);
}

// Private: the installed package.json of a Mesh dependency.
function packageJson(name: string): { version?: string; bin?: string | Record<string, string> } {
  return JSON.parse(readFileSync(join(MESH_DIR, 'node_modules', name, 'package.json'), 'utf8')) as ReturnType<typeof packageJson>;
}

// Private: the script of a package's (first) command, run with this Node rather than through a shell shim.
function binOf(name: string): string {
  const { bin } = packageJson(name);
  const script = typeof bin === 'string' ? bin : Object.values(bin ?? {})[0];
  if (!script) throw new Error(`${name} declares no command`);
  return join(MESH_DIR, 'node_modules', name, script);
}

// Private: run a command to completion, failing loudly.
function run(command: string, args: string[], cwd?: string): void {
  const result = spawnSync(command, args, { cwd, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal})`);
}
