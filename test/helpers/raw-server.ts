/**
 * A bare `node:http` server on port 0 for the answers the mock upstream does not produce
 * (a bare 401, a string `code`, a chunked body with no length, …). Each test scripts the answer.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RawRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface RawServer {
  url: string;
  requests: RawRequest[];
  /** TCP connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/** Starts a server that hands every request, with its whole body read, to `handler`. */
export async function startRawServer(handler: (req: RawRequest, res: ServerResponse) => void): Promise<RawServer> {
  const requests: RawRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(request);
      handler(request, res);
    });
  });
  let connections = 0;
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** Writes `value` as JSON with `status`. */
export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}
