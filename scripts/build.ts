/**
 * `npm run build` (and so `npm start`): builds only what is out of date, so that a second start
 * goes straight to the server instead of compiling for seconds.
 *
 * - The server: TypeScript's build mode, which compares the sources with dist/.tsbuildinfo. It
 *   does not notice an output deleted by hand, so a missing entry point forces a full build. It
 *   emits without type-checking (`--noCheck`: a third of a first build's time); `npm test`
 *   type-checks.
 * - The example page (dist/web): vite, when a file under examples/web is newer than the page built.
 *
 * Runs on Node's own TypeScript support (no tsx), so that checking costs a process, not a compiler.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const resolve = createRequire(import.meta.url).resolve;
const at = (path: string): string => join(root, path);

const ENTRY_POINTS = ['dist/main.js', 'dist/mock-upstream/main.js'];

if (ENTRY_POINTS.some((path) => !existsSync(at(path)))) rmSync(at('dist/.tsbuildinfo'), { force: true });
run('server', resolve('typescript/bin/tsc'), ['-b', 'tsconfig.build.json', '--noCheck']);

const page = at('dist/web/index.html');
if (!existsSync(page) || newest(at('examples/web')) > statSync(page).mtimeMs) {
  const { build } = await import('vite'); // loaded only when there is something to build
  await build({ configFile: at('examples/web/vite.config.ts'), logLevel: 'warn' });
  process.stdout.write('example page: built\n');
} else {
  process.stdout.write('example page: up to date\n');
}

// Private: runs a build step on this Node, stopping the build with its exit code when it fails.
function run(name: string, script: string, args: string[]): void {
  const { status } = spawnSync(process.execPath, [script, ...args], { cwd: root, stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
  process.stdout.write(`${name}: built or up to date\n`);
}

// Private: the latest change time of any file under a directory, in ms.
function newest(directory: string): number {
  let latest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}
