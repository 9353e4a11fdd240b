/**
 * The example page (examples/web) built for a test: vite's `build()` with the page's own config,
 * into a temporary directory instead of dist/web, so a test never depends on (or changes) what
 * `npm run build` left behind.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const VITE_CONFIG = fileURLToPath(new URL('../../../examples/web/vite.config.ts', import.meta.url));

export interface BuiltPage {
  /** A fresh temporary directory holding `directory` (tests may put files beside it). */
  workDirectory: string;
  /** The built page, `<workDirectory>/web`: what main.ts hands the gateway as dist/web. */
  directory: string;
  /** Removes `workDirectory`. */
  remove(): Promise<void>;
}

/** Builds the page into a new temporary directory (about a second). */
export async function buildPage(): Promise<BuiltPage> {
  const workDirectory = await mkdtemp(join(tmpdir(), 'demo-page-'));
  const directory = join(workDirectory, 'web');
  await build({ configFile: VITE_CONFIG, logLevel: 'warn', build: { outDir: directory, emptyOutDir: true } });
  return { workDirectory, directory, remove: () => rm(workDirectory, { recursive: true, force: true }) };
}
