/**
 * The ceiling: a bare `node:http` server that does the least a GraphQL server must do with a
 * request: it reads the POST body, `JSON.parse`s it, takes the scenario's key from its
 * `variables` (a goods code, a site code, a page, coordinates), looks the answer up in a `Map`
 * of prebuilt answers and writes it. The routes file (made by `bare.ts`) names, per path
 * `/<name>`, the gateway's answer to replay and every key of the scenario; each key maps to those
 * bytes, and an unknown key gets them too, so every request costs the same parse, lookup and
 * write. Nothing a GraphQL server could skip is left: no validation, no cache, no logging.
 *
 *   node --import tsx bench/peers/bare-server.ts /tmp/bench-bare-x/routes.json
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

/** What `bare.ts` writes per path: the answer's file and the keys (the variables of each request). */
export interface BareRoute {
  answer: string;
  keys: Array<Record<string, unknown>>;
}

interface Route {
  /** The variables that make the key, in order (those of the first key). */
  names: string[];
  answers: Map<string, Buffer>;
  fallback: Buffer;
}

const file = process.argv[2];
if (file === undefined) throw new Error('usage: bare-server.ts <routes.json>, but got no argument');
const routes = new Map<string, Route>(Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, BareRoute>).map(([name, r]) => {
  const answer = readFileSync(r.answer);
  const names = Object.keys(r.keys[0] ?? {});
  return [`/${name}`, { names, answers: new Map(r.keys.map((k) => [keyOf(names, k), answer])), fallback: answer }] as const;
}));

const server = createServer((request, response) => {
  const route = routes.get(request.url ?? '');
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.once('end', () => {
    if (!route) {
      response.writeHead(404).end();
      return;
    }
    let body: Buffer;
    try {
      const { variables } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { variables?: Record<string, unknown> };
      body = route.answers.get(keyOf(route.names, variables ?? {})) ?? route.fallback;
    } catch {
      response.writeHead(400).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    response.end(body);
  });
});

// Private: a request's key: its variables named by the route, in order.
function keyOf(names: readonly string[], variables: Record<string, unknown>): string {
  return names.map((name) => String(variables[name])).join('|');
}

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`bare server at http://127.0.0.1:${port} on node ${process.version}, ${routes.size} routes\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
