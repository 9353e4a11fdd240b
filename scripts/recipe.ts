/**
 * `npm run recipe -- <name>`: runs one client recipe of examples/recipes/ (`apollo`, `relay.ts`, or
 * the path of a file exporting `run(url)`) against a demo gateway it starts for the purpose: the
 * sources in a process of their own with the built-in mock upstream, on a free port, nothing else
 * configured but what the recipe's `// gateway:` line asks. Prints what `run` returned as JSON;
 * exits 1 when the recipe throws or the gateway does not start, 2 for an unknown name.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { RECIPES_FOLDER, readRecipeHeader, recipeFiles } from './recipe-header.js';

const ROOT = join(import.meta.dirname, '..');

/** The recipe's file for `name`: a recipe's name with or without `.ts`, or a path to a file. */
function recipeFile(name: string | undefined): string | undefined {
  if (name === undefined || name === '') return undefined;
  const candidates = [join(RECIPES_FOLDER, name), join(RECIPES_FOLDER, `${name}.ts`), resolve(name)];
  return candidates.find((path) => path.endsWith('.ts') && existsSync(path));
}

function usage(name: string | undefined): never {
  if (name !== undefined) console.error(`no recipe ${JSON.stringify(name)}`);
  console.error('usage: npm run recipe -- <name>, one of:');
  for (const file of recipeFiles()) {
    const { needs } = readRecipeHeader(join(RECIPES_FOLDER, file));
    console.error(`  ${file.replace(/\.ts$/, '').padEnd(20)} needs ${needs.map((need) => `${need.name}@${need.version}`).join(' ') || 'nothing'}`);
  }
  process.exit(2);
}

/** The demo gateway, as `npm start` runs it on a fresh machine, plus `extra`; resolves once it listens. */
async function startGateway(extra: Record<string, string>): Promise<{ child: ChildProcess; endpoint: string; log: string[] }> {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', HOST: '127.0.0.1', LOG_FORMAT: 'json', ...extra };
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const log: string[] = [];
  let pending = '';
  const endpoint = new Promise<string>((resolveEndpoint, reject) => {
    const read = (chunk: Buffer) => {
      pending += String(chunk);
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        log.push(line);
        const entry = parseLine(line);
        if (typeof entry?.endpoint === 'string') resolveEndpoint(entry.endpoint);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`the demo gateway exited (code ${code}) before it listened:\n${[...log, pending].join('\n')}`)));
  });
  return { child, endpoint: await endpoint, log };
}

function parseLine(line: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

async function main(): Promise<number> {
  const name = process.argv[2];
  const file = recipeFile(name);
  if (file === undefined) usage(name);
  const { gateway: extra } = readRecipeHeader(file);
  const gateway = await startGateway(extra);
  const settings = Object.entries(extra).map(([key, value]) => ` ${key}=${value}`).join('');
  console.error(`running ${file} against a demo gateway at ${gateway.endpoint}${settings}`);
  try {
    const { run } = (await import(pathToFileURL(file).href)) as { run?: (url: string) => Promise<unknown> };
    if (typeof run !== 'function') throw new Error(`${file} exports no run(url) function`);
    const result = await run(gateway.endpoint);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (error) {
    const warnings = gateway.log.filter((line) => Number(parseLine(line)?.level) >= 40);
    console.error(`the recipe failed: ${error instanceof Error ? error.stack : String(error)}`);
    if (warnings.length > 0) console.error(`the gateway logged:\n${warnings.join('\n')}`);
    return 1;
  } finally {
    gateway.child.kill('SIGTERM');
    await once(gateway.child, 'exit');
  }
}

main().then((code) => process.exit(code), (error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
