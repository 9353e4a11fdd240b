/**
 * What an upgrade to WebSocket pays, as an HTTP request does: one request from the client's
 * rate-limit bucket, and a place among its `WS_MAX_SOCKETS_PER_CLIENT` sockets (429 either way).
 * The client is known from the upgrade alone (its valid header key, else its address); a place
 * is held until the TCP socket closes.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { clientKey } from '../../request/current.js';
import type { TakeResult } from '../../admission/buckets/token-buckets.js';
import { isRefusal, refusal } from '../../admission/refusal.js';
import { writeRawRefusal } from '../../admission/refusal-writer.js';
import { type WebSocketConfig, type WebSocketGateway } from './guards.js';
import { nodeHeaders } from '../../admission/api-key.js';

/** Whether an upgrade may go on (false: it has been answered); a promise of it when the fleet's rate limit decides. */
export type UpgradeAdmission = (request: IncomingMessage, socket: Duplex) => boolean | Promise<boolean>;

export function createUpgradeAdmission(gateway: Pick<WebSocketGateway, 'admission' | 'addressOf'>, config: WebSocketConfig): UpgradeAdmission {
  const max = config.webSocket.maxSocketsPerClient;
  const { admission } = gateway;
  const held = new Map<string, number>();

  // Private: takes a place of `client`'s, given back once.
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
    const keyed = admission.key(nodeHeaders(request));
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
