/**
 * The gateway in demo mode, as `npm start` runs it with nothing configured: its own process, the
 * built-in mock upstream with the demo data, listening on a free port. It runs the sources
 * (src/main.ts through tsx) rather than dist/, so a test needs no build first.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { addressOf, freshEnv } from './process.js';

const ROOT = new URL('../..', import.meta.url).pathname;

export interface Demo {
  /** The GraphQL endpoint, e.g. `http://127.0.0.1:54321/graphql`. */
  url: string;
  /** Stops the gateway (SIGTERM, as an operator would) and waits for it to exit. */
  stop(): Promise<void>;
}

/** Starts `npm start`'s demo gateway, with `env` (e.g. `PERSISTED_OPERATIONS_FILE`) set on top. */
export async function startDemo(env: Record<string, string> = {}): Promise<Demo> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: freshEnv(env),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await addressOf(child);
  return {
    url,
    async stop() {
      if (child.exitCode !== null) return;
      const exit = once(child, 'exit');
      child.kill('SIGTERM');
      await exit;
    },
  };
}
