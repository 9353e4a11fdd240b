/**
 * What the built gateway (dist/main.js) says when it starts, as an operator reads it: one summary
 * line (mode, upstream host, port, persisted documents, Redis, purge, live polling) with no
 * secret in it; the endpoint, never GraphiQL when GraphiQL is off; pino-pretty lines on a
 * terminal or with LOG_FORMAT=pretty, JSON otherwise; a port in use as one line and exit code 1.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshEnv } from '../../helpers/process.js';

const ROOT = new URL('../../..', import.meta.url).pathname;
const PERSISTED = 'examples/recipes/__generated__/persisted-queries.json';
const SECRET = 'client-secret-never-logged';
const ADMIN_KEY = 'admin-key-never-logged-0123456789';
/** An upstream that is never called at start (the index is not warmed), with credentials in its URL. */
const UPSTREAM = {
  UPSTREAM_BASE_URL: 'https://url-user:url-password@api.example.com/open',
  OAUTH_TOKEN_URL: 'https://auth.example.com/oauth/token',
  OAUTH_CLIENT_ID: 'client-id',
  OAUTH_CLIENT_SECRET: SECRET,
};
// Terminal colours and carriage returns of a pseudo-terminal, which the assertions ignore.
// eslint-disable-next-line no-control-regex
const TERMINAL_NOISE = /\x1b\[[0-9;]*m|\r/g;

interface Run {
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves once the output matches `pattern`; rejects if the process exits first. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
}

const running: ChildProcess[] = [];

/** Runs dist/main.js with `env` on a fresh machine's environment; `tty`: behind a pseudo-terminal (script(1)). */
function run(env: Record<string, string>, { tty = false } = {}): Run {
  const node = process.execPath;
  const child = tty
    ? spawn('script', ['-qfec', `${node} dist/main.js`, '/dev/null'], { cwd: ROOT, env: freshEnv(env), detached: true })
    : spawn(node, ['dist/main.js'], { cwd: ROOT, env: freshEnv(env), detached: true });
  running.push(child);
  let text = '';
  const waiters = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    text += String(chunk).replace(TERMINAL_NOISE, '');
    for (const wake of waiters) wake();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  return {
    child,
    output: () => text,
    waitFor: (pattern) => new Promise((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(text);
        if (match) {
          waiters.delete(check);
          resolve(match);
        }
      };
      waiters.add(check);
      child.once('exit', () => waiters.has(check) && reject(new Error(`exited before ${pattern}:\n${text}`)));
      check();
    }),
  };
}

/** The JSON log lines of `text` (other lines skipped). */
function jsonLines(text: string): any[] {
  return text.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
}

describe('the gateway at start-up', () => {
  beforeAll(() => {
    const build = spawnSync(process.execPath, ['scripts/build.ts'], { cwd: ROOT, stdio: 'pipe' });
    expect(build.status, String(build.stderr)).toBe(0);
  }, 120_000);
  afterAll(() => running.forEach((child) => child.exitCode === null && process.kill(-child.pid!, 'SIGKILL')));

  it('sums up demo mode in one JSON line, then points to GraphiQL', async () => {
    const gateway = run({});
    const [, endpoint] = await gateway.waitFor(/GraphiQL at (http:\/\/\S+\/graphql)/);
    const [summary] = jsonLines(gateway.output()).filter((line) => line.mode !== undefined);
    const port = Number(new URL(endpoint!).port);
    expect(summary).toMatchObject({
      level: 30, mode: 'demo', port, endpoint, graphiql: true, persisted: null, redis: 'none', purge: false, livePollS: 10,
    });
    expect(summary.upstreamHost).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(summary.msg).toBe(`started on port ${port}: demo mode (built-in mock upstream at ${summary.upstreamHost}; set UPSTREAM_BASE_URL for a real one); `
      + 'persisted documents: off (any document runs); Redis: none; purge endpoint: off; live stock polled every 10 s');
  });

  it('in production names the upstream host, the allow-list and purge, no secret, and the endpoint without GraphiQL', async () => {
    const gateway = run({ ...UPSTREAM, NODE_ENV: 'production', PERSISTED_OPERATIONS_FILE: PERSISTED, ADMIN_API_KEYS: ADMIN_KEY, LIVE_POLL_S: '2.5' });
    const [, endpoint] = await gateway.waitFor(/GraphQL endpoint at (http:\/\/\S+\/graphql)/);
    const lines = jsonLines(gateway.output());
    const summary = lines.find((line) => line.mode !== undefined);
    expect(summary).toMatchObject({
      mode: 'upstream', upstreamHost: 'api.example.com', endpoint, graphiql: false, redis: 'none', purge: true, livePollS: 2.5,
      persisted: { documents: 3, format: 'relay', file: PERSISTED },
    });
    expect(summary.msg).toContain('upstream api.example.com; persisted documents: 3 in relay format');
    expect(summary.msg).toContain('purge endpoint: on; live stock polled every 2.5 s');
    expect(lines.find((line) => line.url === endpoint).msg).toBe(`GraphQL endpoint at ${endpoint} (GraphiQL is off; GRAPHIQL=true turns it on)`);
    const output = gateway.output();
    expect(output).not.toContain('GraphiQL at');
    for (const secret of [SECRET, ADMIN_KEY, 'url-password', 'url-user']) expect(output).not.toContain(secret);
  });

  it('writes pino-pretty lines on a terminal, JSON when LOG_FORMAT=json says so', async () => {
    const pretty = run({}, { tty: true });
    await pretty.waitFor(/GraphiQL at http:\/\/\S+\/graphql/);
    expect(pretty.output()).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: started on port \d+: demo mode .*\{"mode":"demo",/m);
    expect(jsonLines(pretty.output())).toEqual([]);

    const json = run({ LOG_FORMAT: 'json' }, { tty: true });
    await json.waitFor(/GraphiQL at http:\/\/\S+\/graphql/);
    expect(jsonLines(json.output()).map((line) => line.msg)).toContain(`GraphiQL at ${jsonLines(json.output()).find((line) => line.url)?.url}`);
  });

  it('writes pino-pretty lines without a terminal when LOG_FORMAT=pretty, request lines too', async () => {
    const gateway = run({ LOG_FORMAT: 'pretty' });
    const [, endpoint] = await gateway.waitFor(/GraphiQL at (http:\/\/\S+\/graphql)/);
    expect(gateway.output()).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GraphiQL at http:\/\/\S+\/graphql \{"url":/m);
    const answer = await fetch(endpoint!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ cities(pageSize: 1) { total } }' }) });
    expect(answer.status).toBe(200);
    await gateway.waitFor(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: graphql request \{"requestId":"[^"]+","operation":"anonymous","status":200,/m);
    expect(gateway.output()).not.toContain('\x1b['); // no colours for a pipe
    expect(jsonLines(gateway.output())).toEqual([]);
  });

  describe('on a port in use', () => {
    let taken: Server;
    beforeAll(async () => {
      taken = createServer().listen(0, '127.0.0.1');
      await once(taken, 'listening');
    });
    afterAll(() => taken.close());

    it('says so in one line, with what to do, and exits with code 1', async () => {
      const { port } = taken.address() as AddressInfo;
      const gateway = run({ PORT: String(port) });
      const [code] = await once(gateway.child, 'exit');
      expect(code).toBe(1);
      const lines = gateway.output().trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({
        level: 60, code: 'EADDRINUSE', port, msg: `port ${port} is in use: set PORT to a free port or stop the other process`,
      });
    });
  });
});
