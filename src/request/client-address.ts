/**
 * The address a request came from, for the limits counted per client. By default the socket's,
 * which a client cannot choose; with `TRUST_PROXY` (a hop count or addresses/CIDR ranges), it is
 * read from `X-Forwarded-For` right to left as proxy-addr does, the first untrusted address being
 * the client, so entries a client writes itself are never reached.
 */
import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';
import type { TrustProxy } from '../base/config/trust-proxy.js';

/** Where a request came from; `undefined` when its socket is already gone. */
export type AddressOf = (req: IncomingMessage) => string | undefined;

/** The socket's address: the default, when no proxy is trusted. */
export const socketAddress: AddressOf = (req) => req.socket?.remoteAddress;

/** How to read a request's address with `trust` (`undefined`: `TRUST_PROXY` unset). */
export function createAddressOf(trust: TrustProxy | undefined): AddressOf {
  if (trust === undefined || ('hops' in trust && trust.hops === 0)) return socketAddress;
  const trusted = 'hops' in trust ? (_address: string, i: number) => i < trust.hops : proxyaddr.compile([...trust.addresses]);
  return (req) => proxyaddr(req, trusted);
}
