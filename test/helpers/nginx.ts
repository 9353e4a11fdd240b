/**
 * A real nginx in front of a test's gateway, running the shipped deploy/nginx.conf: the file is
 * read and only what must differ on a test machine is put in (the gateway's address, a free port,
 * and every file nginx writes inside a fresh temporary directory), so a change to the shipped
 * configuration is what the tests run. Each substitution must find its line: a shipped file that
 * no longer has it fails here, instead of being tested half. `.ci/run` installs nginx when it is
 * missing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CachingProxy {
  /** The proxy's base URL, e.g. `http://127.0.0.1:54321`. */
  url: string;
  /** Stops nginx and removes its directory. */
  close(): Promise<void>;
}

/** Where nginx may be: `/usr/sbin` is not on every PATH. */
const NGINX_CANDIDATES = ['/usr/sbin/nginx', '/usr/bin/nginx', '/usr/local/sbin/nginx', '/usr/local/bin/nginx'];

/** The nginx binary, or an error saying how to get one. */
export function nginxPath(): string {
  const found = [process.env.NGINX_PATH, ...NGINX_CANDIDATES].find((path) => path !== undefined && existsSync(path));
  if (found === undefined) {
    throw new Error(`nginx is not installed (looked in ${NGINX_CANDIDATES.join(', ')}); run 'apt-get install -y nginx' (.ci/run does)`);
  }
  return found;
}

/**
 * Starts deploy/nginx.conf in front of `upstreamUrl` (e.g. `http://127.0.0.1:54321`). It caches
 * what the gateway's `Cache-Control` allows; `X-Proxy-Cache` tells the client HIT, MISS,
 * EXPIRED or BYPASS.
 */
export async function startCachingProxy(upstreamUrl: string): Promise<CachingProxy> {
  const binary = nginxPath();
  const directory = await mkdtemp(join(tmpdir(), 'vending-graph-nginx-'));
  const port = await freePort();
  const configFile = join(directory, 'nginx.conf');
  await writeFile(configFile, await configuration(directory, port, upstreamUrl));
  const nginx = spawn(binary, ['-c', configFile, '-p', `${directory}/`, '-e', join(directory, 'error.log')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  nginx.stderr!.on('data', (chunk) => void (stderr += String(chunk)));
  try {
    await untilListening(nginx, port);
  } catch (error) {
    nginx.kill('SIGKILL');
    const log = await readFile(join(directory, 'error.log'), 'utf8').catch(() => '');
    await rm(directory, { recursive: true, force: true });
    throw new Error(`nginx did not start: ${(error as Error).message}\n${stderr}${log}`);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      if (nginx.exitCode === null) {
        const exited = new Promise((resolve) => nginx.once('exit', resolve));
        nginx.kill('SIGTERM');
        await exited;
      }
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** The shipped configuration the proxy runs. */
export const SHIPPED_CONFIG = new URL('../../deploy/nginx.conf', import.meta.url);

// Private: the shipped file for one process in the foreground (no master, no workers to leave
// behind), as whoever runs the tests, with every path inside `directory` (nginx's compiled-in
// ones are under /var/lib/nginx) and both replicas pointed at the test's gateway.
async function configuration(directory: string, port: number, upstreamUrl: string): Promise<string> {
  const path = (name: string) => join(directory, name);
  const gateway = new URL(upstreamUrl).host;
  const own = [
    `client_body_temp_path ${path('client_body')};`,
    `proxy_temp_path ${path('proxy_temp')};`,
    `fastcgi_temp_path ${path('fastcgi_temp')};`,
    `uwsgi_temp_path ${path('uwsgi_temp')};`,
    `scgi_temp_path ${path('scgi_temp')};`,
  ].join(' ');
  return substitute(await readFile(SHIPPED_CONFIG, 'utf8'), [
    [/^worker_processes auto;$/m, `worker_processes 1; daemon off; master_process off; pid ${path('nginx.pid')};`],
    [/^(\s*)access_log \/dev\/stdout;$/m, `$1access_log ${path('access.log')};`],
    [/^(\s*)error_log \/dev\/stderr warn;$/m, `$1error_log ${path('error.log')} warn;`],
    [/^http \{$/m, `http {\n  ${own}`],
    [/^(\s*)server gateway-1:4000\b/m, `$1server ${gateway}`],
    [/^(\s*)server gateway-2:4000\b/m, `$1server ${gateway}`],
    [/^(\s*)proxy_cache_path \/var\/cache\/nginx\/vending-graph /m, `$1proxy_cache_path ${path('cache')} `],
    [/^(\s*)listen 80;$/m, `$1listen 127.0.0.1:${port};`],
  ]);
}

// Private: `text` with each pattern replaced once; throws naming a pattern the text lacks.
function substitute(text: string, replacements: Array<[RegExp, string]>): string {
  return replacements.reduce((done, [pattern, replacement]) => {
    if (!pattern.test(done)) throw new Error(`deploy/nginx.conf has no line matching ${pattern}: update test/helpers/nginx.ts with it`);
    return done.replace(pattern, replacement);
  }, text);
}

// Private: a port nothing listens on now (the OS picks it; nginx takes it a moment later).
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// Private: resolves once `port` accepts a connection; fails if nginx exits or after 10 s.
async function untilListening(nginx: ChildProcess, port: number): Promise<void> {
  const end = Date.now() + 10_000;
  for (;;) {
    if (nginx.exitCode !== null) throw new Error(`nginx exited with ${nginx.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > end) throw new Error(`nothing listens on port ${port} after 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
