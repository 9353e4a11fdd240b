/**
 * The ceiling: a bare `node:http` server that reads each request's body and answers with fixed
 * bytes, the gateway's own answers, chosen by path: `/<name>` for each `name=file` argument (the
 * warm scenarios' `/deep` and `/small`; the serving scenarios' `/small`, `/site`, `/cities`,
 * `/deep`, `/sitesNear`). Nothing a GraphQL server could skip is left: no parsing, no
 * validation, no cache lookup, no logging.
 *
 *   node --import tsx bench/peers/bare-server.ts deep=/tmp/deep.json small=/tmp/small.json
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const bodies = new Map<string, Buffer>(process.argv.slice(2).map((arg) => {
  const [name, file] = arg.split('=') as [string, string];
  return [`/${name}`, readFileSync(file)];
}));

const server = createServer((request, response) => {
  const body = bodies.get(request.url ?? '');
  request.resume();
  request.once('end', () => {
    if (!body) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    response.end(body);
  });
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`bare server at http://127.0.0.1:${port}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
