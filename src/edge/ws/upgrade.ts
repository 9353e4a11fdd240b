/**
 * What an upgrade to WebSocket pays before it becomes a socket, as an HTTP request pays it: one
 * request from the client's rate-limit bucket (`RATE_LIMITED`, with `Retry-After`), and a place
 * among the client's sockets, of which it may hold `WS_MAX_SOCKETS_PER_CLIENT`
 * (`TOO_MANY_CONNECTIONS`). Both refusals are a plain HTTP 429 with the body every refusal has.
 *
 * The client is known by the upgrade request alone: its API key from the upgrade's headers when
 * valid (`key:<fingerprint>`, as over HTTP), else its address (`TRUST_PROXY` included). A key
 * sent later in `connectionParams` (a browser's WebSocket cannot set headers) names the client of
 * its operations, not of its socket. A place is held from the upgrade until the underlying TCP
 * socket closes, however the handshake and the connection end.
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { clientKey } from '../../request/record.js';
import type { TakeResult } from '../rate-limit/token-buckets.js';
import { isRefusal } from '../admission/refusal.js';
import { upgradeHeaders, type WebSocketConfig, type WebSocketGateway } from './guards.js';

/** How long a refused upgrade's socket stays open for its answer to arrive, in ms. */
const REFUSAL_LINGER_MS = 1000;

/** Whether an upgrade may go on (false: it has been answered); a promise of it when the fleet's rate limit decides. */
export type UpgradeAdmission = (request: IncomingMessage, socket: Duplex) => boolean | Promise<boolean>;

export function createUpgradeAdmission(gateway: Pick<WebSocketGateway, 'admission' | 'addressOf'>, config: WebSocketConfig): UpgradeAdmission {
  const max = config.webSocket.maxSocketsPerClient;
  const { admission } = gateway;
  /** Places held, by client. */
  const held = new Map<string, number>();

  // Private: takes a place of `client`'s, given back once (when `socket` closes, or at once when refused).
  const hold = (client: string, socket: Duplex) => {
    held.set(client, (held.get(client) ?? 0) + 1);
    let given = false;
    const giveBack = () => {
      if (given) return;
      given = true;
      const left = held.get(client)! - 1;
      if (left === 0) held.delete(client);
      else held.set(client, left);
    };
    socket.once('close', giveBack);
    return giveBack;
  };

  return (request, socket) => {
    // The key names the client here, it does not admit: one may come later, in `connectionParams`.
    const keyed = admission.key(upgradeHeaders(request));
    const key = isRefusal(keyed) ? undefined : keyed.client;
    const client = clientKey(key, request, gateway.addressOf);
    if ((held.get(client) ?? 0) >= max) {
      refuse(socket, 429, 'TOO_MANY_CONNECTIONS', `Too many WebSocket connections: this client holds ${max}, the most one client may; close one first`);
      return false;
    }
    const giveBack = hold(client, socket);
    const decide = (taken: TakeResult) => {
      if (taken.allowed) return true;
      giveBack();
      refuse(socket, 429, 'RATE_LIMITED', `Too many requests: a connection counts as a request; retry in ${taken.retryAfterS} s`, {
        'retry-after': String(taken.retryAfterS),
      });
      return false;
    };
    const verdict = admission.rate.take(key, request);
    return verdict instanceof Promise ? verdict.then(decide) : decide(verdict);
  };
}

/** An upgrade refused in plain HTTP, with the body every other refusal has. */
export function refuse(socket: Duplex, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ errors: [{ message, extensions: { code } }] });
  if (!socket.writable) return void socket.destroy();
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\ncache-control: no-store\r\n${extra}connection: close\r\n\r\n${body}`);
  // Destroyed a moment later, not at once: the answer must reach the client first (server.ts's lingering close).
  socket.on('error', () => {}).resume();
  setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS).unref();
}
