/**
 * A real caching proxy for tests: Debian's nginx with `proxy_cache`, started in the foreground on
 * a free port with a generated configuration whose every file (pid, logs, cache, temp paths) lives
 * in a fresh temporary directory. `.ci/run` installs nginx when it is missing.
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
 * Starts nginx caching what `upstreamUrl` answers. It caches a 200 for 10 minutes unless the
 * answer's `Cache-Control` says otherwise, as many CDNs do by default, so only the gateway's own
 * headers keep an answer out or short. `X-Proxy-Cache` tells the client HIT, MISS or EXPIRED.
 */
export async function startCachingProxy(upstreamUrl: string): Promise<CachingProxy> {
  const binary = nginxPath();
  const directory = await mkdtemp(join(tmpdir(), 'vending-graph-nginx-'));
  const port = await freePort();
  const configFile = join(directory, 'nginx.conf');
  await writeFile(configFile, configuration(directory, port, upstreamUrl));
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

// Private: one process in the foreground (no master, no workers to leave behind), as whoever runs
// the tests; every path inside `directory` (nginx's compiled-in ones are under /var/lib/nginx).
function configuration(directory: string, port: number, upstreamUrl: string): string {
  const path = (name: string) => join(directory, name);
  return `daemon off;
master_process off;
pid ${path('nginx.pid')};
error_log ${path('error.log')} warn;
events { worker_connections 64; }
http {
  access_log ${path('access.log')};
  client_body_temp_path ${path('client_body')};
  proxy_temp_path ${path('proxy_temp')};
  fastcgi_temp_path ${path('fastcgi_temp')};
  uwsgi_temp_path ${path('uwsgi_temp')};
  scgi_temp_path ${path('scgi_temp')};
  proxy_cache_path ${path('cache')} levels=1 keys_zone=gateway:1m;
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass ${upstreamUrl};
      proxy_cache gateway;
      proxy_cache_valid 200 10m;
      add_header X-Proxy-Cache $upstream_cache_status always;
    }
  }
}
`;
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
