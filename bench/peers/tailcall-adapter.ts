/**
 * Tailcall as a peer of the serving scenarios, through `tailcall.ts` (installing Tailcall, its
 * config and its spelling of each query), loaded at run time: when that file is missing, or
 * Tailcall cannot be installed or started, the bench reports the peer as "not run: <why>" and
 * goes on.
 *
 * `tailcall.ts` is expected to export `ensureTailcallInstalled(): {ok:true}|{ok:false;why}`,
 * `startTailcall(upstreamUrl, token): Promise<RunningProcess>`, `tailcallVersions()`, and the
 * request of each scenario (`small`, `site`, `cities`, `deep`) for its variables (see
 * `../workloads/serving.ts`), either as `tailcallQuery(scenario, vars)` or as one function per
 * scenario (`smallQuery(vars)` or `tailcallSmallQuery(vars)`; `…Request` also does). Each must
 * answer with `data` of exactly the gateway's shape: one checker serves every peer.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RunningProcess } from '../processes/child.js';
import type { GraphQLRequest } from '../workloads/queries.js';
import type { PeerScenario, ServingKey } from '../workloads/serving.js';

/** Tailcall, ready to start. */
export interface TailcallPeer {
  versions: Record<string, string>;
  start(upstreamUrl: string, token: string): Promise<RunningProcess>;
  /** The request of `scenario` for `key`, or null when `tailcall.ts` spells no such query. */
  request(scenario: PeerScenario, key: ServingKey): GraphQLRequest | null;
}

/** Tailcall installed and its module loaded, or why not. */
export type TailcallAvailability = { ok: true; peer: TailcallPeer } | { ok: false; why: string };

type Builder = (vars: ServingKey) => GraphQLRequest;
type InstallCheck = { ok: true } | { ok: false; why: string };

interface TailcallModule {
  ensureTailcallInstalled?: () => InstallCheck;
  startTailcall?: (upstreamUrl: string, token: string) => Promise<RunningProcess>;
  tailcallVersions?: () => Record<string, string>;
  tailcallQuery?: (scenario: PeerScenario, vars: ServingKey) => GraphQLRequest;
  [name: string]: unknown;
}

const MODULE_FILE = fileURLToPath(new URL('./tailcall.ts', import.meta.url));

/** Load `tailcall.ts` and install Tailcall (first run only); never throws. */
export async function loadTailcall(): Promise<TailcallAvailability> {
  if (!existsSync(MODULE_FILE)) return { ok: false, why: 'bench/peers/tailcall.ts is not there' };
  let module: TailcallModule;
  try {
    // A specifier in a variable: the file may not exist when this one is type-checked.
    const specifier = './tailcall.js';
    module = (await import(specifier)) as TailcallModule;
  } catch (error) {
    return { ok: false, why: `bench/peers/tailcall.ts failed to load: ${firstLine(error)}` };
  }
  const { ensureTailcallInstalled, startTailcall, tailcallVersions } = module;
  if (typeof ensureTailcallInstalled !== 'function' || typeof startTailcall !== 'function') {
    return { ok: false, why: 'bench/peers/tailcall.ts does not export ensureTailcallInstalled and startTailcall' };
  }
  let installed: InstallCheck;
  try {
    installed = ensureTailcallInstalled();
  } catch (error) {
    installed = { ok: false, why: firstLine(error) };
  }
  if (!installed.ok) return { ok: false, why: installed.why };
  let versions: Record<string, string> = {};
  try {
    versions = typeof tailcallVersions === 'function' ? tailcallVersions() : {};
  } catch (error) {
    versions = { error: firstLine(error) };
  }
  return { ok: true, peer: { versions, start: startTailcall, request: (scenario, key) => builderOf(module, scenario)?.(key) ?? null } };
}

// Private: the module's request builder for one scenario, under any of the accepted names.
function builderOf(module: TailcallModule, scenario: PeerScenario): Builder | null {
  const query = module.tailcallQuery;
  if (typeof query === 'function') return (vars) => query(scenario, vars);
  const name = scenario[0]!.toUpperCase() + scenario.slice(1);
  for (const candidate of [`${scenario}Query`, `tailcall${name}Query`, `${scenario}Request`, `tailcall${name}Request`]) {
    const builder = module[candidate];
    if (typeof builder === 'function') return builder as Builder;
  }
  return null;
}

// Private: an error's first line, for a one-line "not run" reason.
function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 300);
}
