/**
 * GraphQL over WebSocket: graphql-ws's server, over ws, on the GraphQL endpoint of the gateway's
 * own HTTP server, every operation through an HTTP request's guards. Protocol errors are logged
 * as the client's, at debug. No `Origin` check: no client is authenticated by cookie.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { handleProtocols, makeServer } from 'graphql-ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { ERRORS } from '../../base/errors.js';
import type { Logger } from '../../base/logger.js';
import { refusal } from '../../admission/refusal.js';
import { upgradePathRefusal } from '../../admission/route.js';
import { writeRawRefusal } from '../../admission/refusal-writer.js';
import { ROUTES } from '../../admission/routes.js';
import { createConnection, keepAlive } from './connection.js';
import type { WebSocketConfig, WebSocketGateway } from './guards.js';
import { createSocketOperations, type SocketOperation } from './callbacks.js';
import { createUpgradeAdmission } from './upgrade.js';

export type { WebSocketConfig, WebSocketGateway } from './guards.js';

export interface WebSocketOptions {
  logger: Logger;
  /** Time between pings of each socket, in ms; a socket that has not answered by the next ping is cut off. Default 12 000 (graphql-ws's). */
  keepAliveMs?: number;
}

export interface WebSocketTransport {
  /** Sockets open now. */
  readonly connections: number;
  /** Operations of every socket being admitted or running now (closed sockets' included until they have ended). */
  readonly operations: number;
  /** Refuses new upgrades, closes every socket with 1001, resolves once their operations ended; cuts off the rest after `graceMs` (default 1000). */
  close(graceMs?: number): Promise<void>;
}

const KEEP_ALIVE_MS = 12_000;
const CLOSE_GRACE_MS = 1000;

/** Serves GraphQL over WebSocket on `server`'s upgrades to the GraphQL endpoint. */
export function attachWebSocket(server: Server, gateway: WebSocketGateway, config: WebSocketConfig, options: WebSocketOptions): WebSocketTransport {
  const { logger, keepAliveMs = KEEP_ALIVE_MS } = options;
  const graphqlWs = makeServer(createSocketOperations(gateway, config, logger));
  const sockets = new WebSocketServer({ noServer: true, maxPayload: config.maxRequestBodyBytes, handleProtocols: (protocols) => handleProtocols(protocols) });
  const ends = new Set<Promise<void>>();
  let closing: Promise<void> | undefined;

  const admit = createUpgradeAdmission(gateway, config);
  let operations = 0;
  const tally = (change: number) => void (operations += change);

  const refusedWhileClosing = (socket: Duplex) => {
    if (closing === undefined) return false;
    writeRawRefusal(socket, refusal('SHUTTING_DOWN'));
    return true;
  };

  const upgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (refusedWhileClosing(socket)) return;
    const misrouted = upgradePathRefusal(pathOf(request.url), ROUTES.graphql);
    if (misrouted !== undefined) return writeRawRefusal(socket, misrouted);
    const proceed = (admitted: boolean) => {
      // The verdict may have come from Redis while the gateway began to stop.
      if (!admitted || refusedWhileClosing(socket)) return;
      sockets.handleUpgrade(request, socket, head, (ws) => {
        const end = serve(ws, request);
        ends.add(end);
        void end.finally(() => ends.delete(end));
      });
    };
    const admitted = admit(request, socket);
    if (admitted instanceof Promise) void admitted.then(proceed);
    else proceed(admitted);
  };
  server.on('upgrade', upgrade);

  // Private: one socket, for graphql-ws; resolves once it has closed and its operations have ended.
  function serve(socket: WebSocket, request: IncomingMessage): Promise<void> {
    socket.on('error', (error) => logger.debug({ err: error }, 'WebSocket client error'));
    const connection = createConnection<SocketOperation>(socket, { logger, maxBufferedBytes: config.webSocket.maxBufferedBytes, tally });
    const stopPinging = keepAlive(socket, keepAliveMs);
    const closed = graphqlWs.opened({
      protocol: socket.protocol,
      send: connection.send,
      close: connection.shut,
      onMessage: (handle) => socket.on('message', (data) => connection.receive(String(data), handle)),
    }, { socket, request, connection });
    return new Promise((resolve) => {
      socket.once('close', (code, reason) => {
        stopPinging();
        connection.shut(code, String(reason));
        closed(code, String(reason)).catch((error: unknown) => logger.error({ err: error }, 'WebSocket close handling failed')).finally(resolve);
      });
    });
  }

  return {
    get connections() {
      return sockets.clients.size;
    },
    get operations() {
      return operations;
    },
    close(graceMs = CLOSE_GRACE_MS) {
      closing ??= (async () => {
        const open = [...sockets.clients];
        if (open.length > 0) logger.info({ sockets: open.length }, 'closing WebSocket connections: going away');
        for (const socket of open) socket.close(1001, ERRORS.SHUTTING_DOWN.message);
        const cutOff = setTimeout(() => open.forEach((socket) => socket.terminate()), graceMs);
        await Promise.all(ends);
        clearTimeout(cutOff);
        await new Promise<void>((resolve) => sockets.close(() => resolve()));
        server.off('upgrade', upgrade);
      })();
      return closing;
    },
  };
}

function pathOf(target: string | undefined): string {
  return (target ?? '').split('?', 1)[0]!;
}
