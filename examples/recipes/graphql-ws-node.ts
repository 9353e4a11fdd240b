// needs: graphql-ws@6.x ws@8.x graphql@16.x
/**
 * graphql-ws on Node: GraphQL over WebSocket (`graphql-transport-ws`) at the same `/graphql`.
 * graphql-ws uses the global `WebSocket`, which Node has only since version 22; before that,
 * createClient fails with "WebSocket implementation missing". Passing the `ws` package as
 * `webSocketImpl` works on every Node. In a browser, leave `webSocketImpl` out.
 */
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const SITE_STOCK = `subscription SiteStock($code: String!) {
  siteStock(code: $code) { code name points { code cargoLanes { goodsCode stock } } }
}`;

export async function run(url: string) {
  const client = createClient({
    url: url.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    // With GATEWAY_API_KEYS set, the key goes here: connectionParams: { 'x-api-key': KEY }.
  });
  try {
    // siteStock's first event is the site as it is now; each later one is a change.
    const events = client.iterate({ query: SITE_STOCK, variables: { code: 'S000001' } });
    const first = await events.next();
    await events.return?.();
    return first.value;
  } finally {
    await client.dispose();
  }
}
