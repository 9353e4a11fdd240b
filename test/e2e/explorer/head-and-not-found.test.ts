/**
 * Small promises of the gateway's answers: a HEAD of the GraphiQL page, or of a GraphQL GET, is
 * answered as its GET, headers and all, without a body (read off a raw socket: a client library would drop a body
 * a HEAD should not have had); and every 404 or 405 the gateway writes off the GraphQL endpoint
 * (the example page's, yoga's own for an unknown path, a GraphiQL asset no longer served) is
 * `no-store`, so that no cache in front keeps a file's absence.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';

/** One answer's status line and headers, as sent (names lower-cased). */
interface Head {
  status: number;
  headers: Record<string, string>;
}

/** Writes `text` on a new connection to `url` (its last request asking to close) and answers every byte received until the gateway closes it. */
function exchange(url: string, text: string): Promise<Buffer> {
  const { hostname, port } = new URL(url);
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.write(text));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => done(Buffer.concat(chunks)));
    socket.on('error', fail);
    socket.setTimeout(20_000, () => socket.destroy(new Error('no answer within 20 s')));
  });
}

/** The answer head at the start of `bytes`, and where it ends. */
function headAt(bytes: Buffer): { head: Head; end: number } {
  const end = bytes.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
  return { head: { status: Number(statusLine!.split(' ')[1]), headers }, end: end + 4 };
}

/** What a HEAD and its GET must agree on. */
const REPRESENTATION = ['content-type', 'content-length', 'content-encoding', 'etag', 'cache-control', 'vary', 'content-security-policy'];
const pick = (headers: Record<string, string>) => Object.fromEntries(REPRESENTATION.map((name) => [name, headers[name]]));

describe('HEAD of the GraphiQL page', () => {
  let h: Harness;
  afterAll(() => h?.close());

  it.each([['identity', 'identity'], ['br', 'gzip, br']])('answers HEAD /graphql asking for HTML (%s) as the GET, without a body', async (_coding, acceptEncoding) => {
    h ??= await startGateway();
    const headers = `Host: gateway\r\nAccept: text/html\r\nAccept-Encoding: ${acceptEncoding}\r\n`;
    // The HEAD, then the GET on the same connection: any byte of a body after the HEAD's head would be read as the GET's answer.
    const bytes = await exchange(h.url, `HEAD /graphql HTTP/1.1\r\n${headers}\r\nGET /graphql HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`);
    const head = headAt(bytes);
    const get = headAt(bytes.subarray(head.end));
    expect(bytes.subarray(head.end, head.end + 9).toString('latin1')).toBe('HTTP/1.1 ');
    expect([head.head.status, get.head.status]).toEqual([200, 200]);
    expect(head.head.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(pick(head.head.headers)).toEqual(pick(get.head.headers));
    expect(bytes.length - head.end - get.end).toBe(Number(get.head.headers['content-length']));
  });
});

describe('HEAD of a GraphQL GET', () => {
  let h: Harness;
  afterAll(() => h?.close());

  it.each([['a miss', 'cities'], ['a hit', 'cities']])('answers HEAD /graphql?query=… (%s) as the GET, without a body', async (_case, list) => {
    h ??= await startGateway();
    const target = `/graphql?query=${encodeURIComponent(`{ ${list}(pageSize: 20) { items { code name } } }`)}`;
    const headers = 'Host: gateway\r\nAccept: application/graphql-response+json\r\nAccept-Encoding: gzip, br\r\n';
    const bytes = await exchange(h.url, `HEAD ${target} HTTP/1.1\r\n${headers}\r\nGET ${target} HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`);
    const head = headAt(bytes);
    const get = headAt(bytes.subarray(head.end));
    expect(bytes.subarray(head.end, head.end + 9).toString('latin1')).toBe('HTTP/1.1 ');
    expect([head.head.status, get.head.status]).toEqual([200, 200]);
    expect(pick(head.head.headers)).toEqual(pick(get.head.headers));
    expect(head.head.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
    expect(bytes.length - head.end - get.end).toBe(Number(get.head.headers['content-length']));
  });
});

describe('404s and 405s off the GraphQL endpoint', () => {
  let built: string;
  let unbuilt: string;
  const harnesses: Harness[] = [];
  beforeAll(async () => {
    built = await mkdtemp(join(tmpdir(), 'vending-graph-demo-'));
    await mkdir(join(built, 'assets'));
    await writeFile(join(built, 'index.html'), '<!doctype html><title>demo</title>');
    await writeFile(join(built, 'assets', 'app-0123abcd.js'), 'console.log(1);');
    unbuilt = await mkdtemp(join(tmpdir(), 'vending-graph-demo-'));
  });
  afterAll(async () => {
    for (const h of harnesses) await h.close();
    await rm(built, { recursive: true, force: true });
    await rm(unbuilt, { recursive: true, force: true });
  });

  async function answer(h: Harness, path: string, method = 'GET'): Promise<[number, string | null]> {
    const response = await fetch(`${h.url}${path}`, { method });
    await response.arrayBuffer();
    return [response.status, response.headers.get('cache-control')];
  }

  it('marks every /demo 404 and 405 no-store, with a build, without one, and with no page at all', async () => {
    const [page, noBuild, noPage] = [
      await startGateway({ demoPageDirectory: built }), await startGateway({ demoPageDirectory: unbuilt }), await startGateway(),
    ];
    harnesses.push(page, noBuild, noPage);
    expect(await answer(page, '/demo/assets/app-0123abcd.js')).toEqual([200, 'public, max-age=31536000, immutable']);
    expect(await answer(page, '/demo/assets/gone-4567.js')).toEqual([404, 'no-store']);
    expect(await answer(page, '/demo/..%2fsecret.txt')).toEqual([404, 'no-store']);
    expect(await answer(page, '/demo/', 'POST')).toEqual([405, 'no-store']);
    expect(await answer(noBuild, '/demo/')).toEqual([404, 'no-store']);
    expect(await answer(noPage, '/demo/')).toEqual([404, 'no-store']);
  });

  it('answers an unknown path and an unknown GraphiQL asset with the registry\'s NOT_FOUND, no-store', async () => {
    const h = await startGateway();
    harnesses.push(h);
    expect(await answer(h, '/nowhere')).toEqual([404, 'no-store']);
    expect(await answer(h, '/graphql/assets/0000000000000000.js')).toEqual([404, 'no-store']);
    for (const path of ['/nowhere', '/graphql/assets/0000000000000000.js', '/demo/']) {
      const response = await fetch(`${h.url}${path}`);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await response.json()) as { errors: Array<{ message: string; extensions: { code: string } }> };
      expect(body.errors[0]!.extensions.code).toBe('NOT_FOUND');
      if (path === '/nowhere') expect(body.errors[0]!.message).toBe('Nothing is served here: GraphQL is at /graphql');
    }
  });

  it('answers GET / with where things are: JSON for a client, a page of links for a browser, each only what is on', async () => {
    const h = await startGateway({ demoPageDirectory: '/nonexistent' });
    const off = await startGateway({ env: { GRAPHIQL: 'false' } });
    harnesses.push(h, off);
    const json = await fetch(`${h.url}/`);
    expect([json.status, json.headers.get('content-type')]).toEqual([200, 'application/json; charset=utf-8']);
    expect(await json.json()).toMatchObject({ graphql: '/graphql', explorer: '/graphql', demo: '/demo/', schema: '/schema.graphql' });
    const html = await fetch(`${h.url}/`, { headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await html.text()).toContain('<a href="/demo/">Example page</a>');
    const bare = (await (await fetch(`${off.url}/`)).json()) as Record<string, unknown>;
    expect([bare.graphql, bare.explorer, bare.demo]).toEqual(['/graphql', undefined, undefined]);
    expect((await fetch(`${h.url}/`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status).toBe(405);
  });

  it('answers a /demo 405 with the registry\'s METHOD_NOT_ALLOWED and Allow', async () => {
    const page = await startGateway({ demoPageDirectory: built });
    harnesses.push(page);
    const response = await fetch(`${page.url}/demo/`, { method: 'POST' });
    expect([response.status, response.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    expect(((await response.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code).toBe('METHOD_NOT_ALLOWED');
  });
});
