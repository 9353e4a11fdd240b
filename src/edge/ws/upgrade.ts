/**
 * What an upgrade to WebSocket pays before it becomes a socket, as an HTTP request pays it: one
 * request from the client's rate-limit bucket (`RATE_LIMITED`, with `Retry-After`), and a place
 * among the client's sockets, of which it may hold `WS_MAX_SOCKETS_PER_CLIENT`
 * (`TOO_MANY_CONNECTIONS`). Both refusals are a plain HTTP 429 with the body every refusal has
 * (edge/refusal-writer.ts); the first is the admission's own, as an HTTP request gets it.
 *
 * The client is known by the upgrade request alone: its API key from the upgrade's headers when
 * valid (`key:<fingerprint>`, as over HTTP), else its address (`TRUST_PROXY` included). A key
 * sent later in `connectionParams` (a browser's WebSocket cannot set headers) names the client of
 * its operations, not of its socket. A place is held from the upgrade until the underlying TCP
 * socket closes, however the handshake and the connection end.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { clientKey } from '../../request/record.js';
import type { TakeResult } from '../rate-limit/token-buckets.js';
import { isRefusal, refusal } from '../admission/refusal.js';
import { writeRawRefusal } from '../refusal-writer.js';
import { upgradeHeaders, type WebSocketConfig, type WebSocketGateway } from './guards.js';

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
      writeRawRefusal(socket, refusal('TOO_MANY_CONNECTIONS', `Too many WebSocket connections: this client holds ${max}, the most one client may; close one first`));
      return false;
    }
    const giveBack = hold(client, socket);
    const decide = (taken: TakeResult) => {
      const refused = admission.rate.refusal(taken);
      if (refused === undefined) return true;
      giveBack();
      writeRawRefusal(socket, refused);
      return false;
    };
    const verdict = admission.rate.take(key, request);
    return verdict instanceof Promise ? verdict.then(decide) : decide(verdict);
  };
}
