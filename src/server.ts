/**
 * The HTTP server around a request handler (yoga), with the timeouts a public server needs.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ListenOptions {
  port: number;
  host: string;
}

export interface RunningServer {
  server: Server;
  /** e.g. `http://127.0.0.1:4000` (the port actually bound). */
  url: string;
  /** Stops accepting, closes idle keep-alive sockets, resolves once in-flight requests are done. */
  close(): Promise<void>;
}

export async function listen(handler: RequestListener, { port, host }: ListenOptions): Promise<RunningServer> {
  const server = createServer({ headersTimeout: 10_000, requestTimeout: 30_000, maxHeaderSize: 16_384 }, handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return {
    server,
    url: `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${address.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }),
  };
}
