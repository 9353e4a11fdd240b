/**
 * The Relay recipes copied into a fresh project, step by step as docs/recipes-running.md writes
 * them: npm init, the packages installed from the registry at package-lock.json's versions,
 * relay.ts, relay-persisted.ts and relay.config.json copied, the schema fetched from a demo
 * gateway, `schema` pointed at it, the persisted file created before the first compile,
 * relay-compiler run, then each recipe run with tsx against a demo gateway (relay-persisted.ts
 * against one given the map the fresh project compiled). Slow: it installs packages (seconds with
 * npm's cache, up to minutes without).
 */
import { execFile, type ExecFileOptions } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type Demo } from '../../helpers/demo.js';

const ROOT = new URL('../../..', import.meta.url).pathname;
const RECIPES = join(ROOT, 'examples/recipes');
const project = mkdtempSync(join(tmpdir(), 'vending-graph-relay-app-'));
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> };
/**
 * A shell's environment, not this run's npm's (`npm_config_local_prefix` and the like would point
 * npm at this repository), with the project's own node first on the PATH, so npm and npx run on it.
 */
const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(npm_|INIT_CWD$)/i.test(name))),
  PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`,
};
const INSTALL_TIMEOUT_MS = 300_000;

/** Runs `command` in the fresh project; resolves with its stdout, rejects with its stderr. */
async function inProject(command: string, args: string[], options: ExecFileOptions = {}): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(command, args, { cwd: project, env, maxBuffer: 16 * 1024 * 1024, ...options });
    return String(stdout);
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${stderr ?? ''}\n${stdout ?? ''}`);
  }
}

/** `npx tsx -e …`: imports `file` from the project, runs it against `url`, its result parsed. */
async function runRecipe(file: string, url: string): Promise<any> {
  const script = `import('./${file}').then((recipe) => recipe.run(${JSON.stringify(url)})).then((result) => console.log(JSON.stringify(result)))`;
  return JSON.parse(await inProject('npx', ['tsx', '-e', script]));
}

const at = (name: string) => `${name}@${lock.packages[`node_modules/${name}`]!.version}`;

describe('the Relay recipes in a fresh project', () => {
  let demo: Demo;

  beforeAll(async () => {
    demo = await startDemo();
    await inProject('npm', ['init', '-y']);
    await inProject('npm', ['pkg', 'set', 'type=module']);
    await inProject('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', at('relay-runtime'), at('relay-compiler'), at('tsx')], { timeout: INSTALL_TIMEOUT_MS });
    for (const file of ['relay.ts', 'relay-persisted.ts', 'relay.config.json']) copyFileSync(join(RECIPES, file), join(project, file));
    const schema = await fetch(demo.url.replace(/\/graphql$/, '/schema.graphql'));
    expect(schema.status).toBe(200);
    writeFileSync(join(project, 'schema.graphql'), await schema.text());
    const config = JSON.parse(readFileSync(join(project, 'relay.config.json'), 'utf8'));
    expect(config.schema).toBe('../../schema.graphql'); // where it is in the repository, and the one line to change
    writeFileSync(join(project, 'relay.config.json'), JSON.stringify({ ...config, schema: './schema.graphql' }, null, 2));
  }, INSTALL_TIMEOUT_MS + 60_000);
  afterAll(async () => {
    await demo?.stop();
    rmSync(project, { recursive: true, force: true });
  });

  it('refuses to compile until the persisted file exists, then compiles with it', async () => {
    await expect(inProject('npx', ['relay-compiler'])).rejects.toThrow(/__generated__\/persisted-queries\.json` for the local query persisting does not exist/);
    mkdirSync(join(project, '__generated__'));
    writeFileSync(join(project, '__generated__/persisted-queries.json'), '{}');
    await inProject('npx', ['relay-compiler']);
    for (const artifact of ['relaySitesQuery.graphql.ts', 'relayPersistedSiteQuery.graphql.ts']) expect(existsSync(join(project, '__generated__', artifact)), artifact).toBe(true);
    // The same ids and texts as the map committed with the recipes.
    const fresh = JSON.parse(readFileSync(join(project, '__generated__/persisted-queries.json'), 'utf8')) as Record<string, string>;
    const committed = JSON.parse(readFileSync(join(RECIPES, '__generated__/persisted-queries.json'), 'utf8')) as Record<string, string>;
    expect(Object.keys(fresh)).toHaveLength(2);
    for (const [id, text] of Object.entries(fresh)) expect(committed[id], id).toBe(text);
  }, 120_000);

  it('runs relay.ts against the demo gateway', async () => {
    const sites = await runRecipe('relay.ts', demo.url);
    expect(sites.total).toBeGreaterThan(0);
    expect(sites.items[0]).toMatchObject({ id: expect.any(String), city: { name: '上海' } });
  }, 120_000);

  it('runs relay-persisted.ts against a demo gateway given the map it compiled', async () => {
    const persisted = await startDemo({ PERSISTED_OPERATIONS_FILE: join(project, '__generated__/persisted-queries.json') });
    try {
      expect(await runRecipe('relay-persisted.ts', persisted.url)).toMatchObject({ code: 'S000001', city: { name: expect.any(String) } });
    } finally {
      await persisted.stop();
    }
  }, 120_000);
});
