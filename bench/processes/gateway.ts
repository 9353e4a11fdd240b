/**
 * The built gateway (`dist/main.js`) as a child process of the bench, started as it is deployed
 * and pinned to the system-under-test core; the pinning, waiting and stopping are `child.ts`'s.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GATEWAY_LOG_LEVEL, ROOT, SUT_CORE } from '../config.js';
import { freePort, pinned, waitUntilOk, type RunningProcess } from './child.js';

/** Where the gateway's upstream is and how to sign in to it. */
export interface UpstreamAddress {
  url: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
}

/**
 * Start `dist/main.js` pinned to the system-under-test core, as it is deployed
 * (`NODE_ENV=production`, default settings), and wait until `/readyz` passes: readiness means
 * it holds an upstream token, as a load balancer would wait for before sending traffic. The
 * port is picked here rather than read from the log, so any `LOG_LEVEL` works.
 */
export async function startGateway(upstream: UpstreamAddress, env: Record<string, string> = {}, options: GatewayProcessOptions = {}): Promise<RunningProcess> {
  const port = await freePort();
  const [command, args] = pinned(SUT_CORE, process.execPath, [...SHIPPED_NODE_ARGS, ...(options.nodeArgs ?? []), 'dist/main.js']);
  const logFd = options.logFile === undefined ? undefined : openSync(options.logFile, 'w');
  const child = spawn(command, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: GATEWAY_LOG_LEVEL,
      UPSTREAM_BASE_URL: upstream.url,
      OAUTH_TOKEN_URL: upstream.tokenUrl,
      OAUTH_CLIENT_ID: upstream.clientId,
      OAUTH_CLIENT_SECRET: upstream.clientSecret,
      ...env,
    },
    // The gateway still formats and writes its log lines (its cost, as deployed); /dev/null (or a
    // file) takes them, so that reading them costs the load generator's core nothing meanwhile.
    // A crash's stack is on stderr.
    stdio: ['ignore', logFd ?? 'ignore', 'inherit'],
  });
  if (logFd !== undefined) closeSync(logFd); // the child holds its own copy
  try {
    const url = `http://127.0.0.1:${port}`;
    await waitUntilOk(`${url}/readyz`, { method: 'GET' }, child);
    return { url, pid: child.pid!, child };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

/** The node options the gateway ships with: those of `npm start` (package.json), which the Dockerfile's are checked against. */
export const SHIPPED_NODE_ARGS = shippedNodeArgs();

function shippedNodeArgs(): string[] {
  const start = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const match = /\bnode((?: --[^\s]+)*) dist\/main\.js/.exec(start);
  if (match === null) throw new Error(`bench: no "node … dist/main.js" in package.json's start script: ${start}`);
  return match[1]!.split(' ').filter(Boolean);
}

/** How a gateway process is started, besides its environment. */
export interface GatewayProcessOptions {
  /** Node options before `dist/main.js`, e.g. `GC_ON_SIGNAL`. */
  nodeArgs?: string[];
  /** Its stdout (one JSON log line per request) goes to this file, truncated first, instead of /dev/null. */
  logFile?: string;
}
