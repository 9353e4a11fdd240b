/**
 * Running the built gateway (dist/main.js) as its own process, as operators do; used by the
 * demo tests and the soak run.
 */
import type { ChildProcess } from 'node:child_process';

/**
 * The environment of a fresh machine: nothing of the gateway's configured (the variables a test
 * run may carry are cleared), listening on a free port, with `extra` on top.
 */
export function freshEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(UPSTREAM_|OAUTH_|CACHE_|DEMO_|MAX_|GATEWAY_|PERSISTED_|REDIS_|LIVE_|PORT$|HOST$|NODE_OPTIONS)/.test(name)) delete env[name];
  }
  return { ...env, PORT: '0', HOST: '127.0.0.1', ...extra };
}

/**
 * Resolves with the GraphQL endpoint once the gateway logs it (GraphiQL on or off). Keeps reading the child's stdout
 * afterwards, so that a full pipe never blocks the gateway's logging.
 */
export function addressOf(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    let found = false;
    child.stdout!.on('data', (chunk) => {
      if (found) return;
      output += String(chunk);
      const match = /(?:GraphiQL|GraphQL endpoint) at (http:\/\/\S+\/graphql)/.exec(output);
      if (match) {
        found = true;
        resolve(match[1]!);
      }
    });
    child.once('exit', () => found || reject(new Error(`the gateway exited without listening:\n${output}`)));
  });
}
