/** `TRUST_PROXY`'s text: a hop count, or addresses and CIDR ranges as proxy-addr reads them. */
import proxyaddr from 'proxy-addr';

/** `TRUST_PROXY`: how many proxies nearest to the gateway are trusted, or which addresses. */
export type TrustProxy = { hops: number } | { addresses: readonly string[] };

/** Hop counts accepted: more proxies than this in front of one gateway is a mistake. */
const MAX_HOPS = 100;

/** The setting, or the entries that are neither an address nor a range. */
export function parseTrustProxy(text: string): { trust: TrustProxy } | { invalid: readonly string[] } {
  const value = text.trim();
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return hops <= MAX_HOPS ? { trust: { hops } } : { invalid: [value] };
  }
  const addresses = value.split(',').map((entry) => entry.trim());
  const invalid = addresses.filter((entry) => !compiles(entry));
  return invalid.length === 0 ? { trust: { addresses } } : { invalid };
}

// Private: proxy-addr's own check.
function compiles(entry: string): boolean {
  try {
    proxyaddr.compile(entry);
    return true;
  } catch {
    return false;
  }
}
