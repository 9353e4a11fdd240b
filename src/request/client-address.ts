/**
 * The address a request came from, for the limits counted per client (the rate limit, the live
 * subscriptions' per-client limit: request/record.ts's `clientKey`).
 *
 * By default it is the socket's: a client cannot choose it, and `X-Forwarded-For` is ignored, since
 * anyone can send that header. Behind reverse proxies, every client would then share the nearest
 * proxy's address and its budget; `TRUST_PROXY` names the proxies, and the address is read from
 * `X-Forwarded-For` as Express reads it (the proxy-addr package): from the socket's address back
 * through the header, right to left, each trusted address is a proxy and the first one not trusted
 * is the client. Only trusted proxies' entries are read, so a client that writes the header itself
 * only adds entries beyond the one its first proxy appends, which are never reached.
 *
 * `TRUST_PROXY` is either a hop count (`1`: the proxy nearest to the gateway, whatever its address,
 * as with one load balancer in front; `0`: none) or a comma-separated list of addresses and CIDR
 * ranges, IPv4 or IPv6 (`10.0.0.0/8,127.0.0.1,fd00::/8`; also proxy-addr's names `loopback`,
 * `linklocal`, `uniquelocal`).
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
  // proxy-addr asks about each address from the socket's (i = 0) leftwards in the header.
  const trusted = 'hops' in trust ? (_address: string, i: number) => i < trust.hops : proxyaddr.compile([...trust.addresses]);
  return (req) => proxyaddr(req, trusted);
}
