/**
 * What the largest connection query the item limit admits costs beside the largest list query:
 * CPU of the built gateway (`dist/main.js`, pinned as in the bench) per request, from /proc, for
 * `searchProductsConnection(first: N) { … availabilityConnection(first: 500) … }` and
 * `searchProducts(first: 99) { … availability(first: 500) … }` (99 × 501 entries, the most under
 * the default `MAX_ITEMS_PER_OPERATION` of 50,000), asked in turn, one at a time. N is the most
 * products the limit admits with each edge counted `EDGE_WEIGHT` times (src/graph/items.ts);
 * `CONNECTION_FIRST=99` asks for the same items as the list query. The catalog holds 100 products
 * over 64,000 lanes, so every product has its 500 lanes. `MAX_QUERY_DEPTH=7`: the depth a
 * connection's lanes take (docs/queries.md, Cursor pagination).
 *
 *   npm run build && npx tsx bench/connection-cost.ts [requests per query, default 30] [coding]
 *
 * The coding (`Accept-Encoding`) defaults to `identity`. `PROFILE_DIR=<dir>` runs the gateway
 * under `node --cpu-prof` and leaves its profile there. Answers from the catalog index are never
 * stored, so every request is executed. Figures go to stdout only; run it on an idle machine (it
 * says the load average it started under).
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { EDGE_WEIGHT } from '../src/graph/items.js';
import { createMockUpstream } from '../src/mock-upstream/index.js';
import { stopProcess } from './processes/child.js';
import { startGateway } from './processes/gateway.js';

const REQUESTS = Number(process.argv[2] ?? 30);
const CODING = process.argv[3] ?? 'identity';
const WARM_UP = 5;
const MAX_ITEMS = 50_000;
const LANES = 500;
const CONNECTION_FIRST = Number(process.env.CONNECTION_FIRST ?? Math.floor(MAX_ITEMS / (EDGE_WEIGHT * (1 + LANES))));
const FILTERS = `first: ${LANES}, inStockOnly: false, enabledOnly: false`;
const QUERIES = {
  // Edges as a client pages them: a cursor each, and the node.
  [`connection ${CONNECTION_FIRST} × ${LANES}`]: `{ searchProductsConnection(first: ${CONNECTION_FIRST}) { edges { cursor node { goodsCode
    availabilityConnection(${FILTERS}) { edges { cursor node { stock } } } } } } }`,
  [`list 99 × ${LANES}`]: `{ searchProducts(first: 99) { goodsCode availability(${FILTERS}) { stock } } }`,
};

const mock = await createMockUpstream({ catalog: { cities: 30, sites: 2000, pointsPerSite: 4, lanesPerPoint: 8, products: 100 } });
const profile = process.env.PROFILE_DIR;
const gateway = await startGateway(mock, { MAX_QUERY_DEPTH: '7' }, profile ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profile}`] } : {});
try {
  say(`Accept-Encoding: ${CODING}; load average at start: ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
  for (const [name, query] of Object.entries(QUERIES)) {
    const answer = await ask(gateway.url, query);
    say(`${name}: ${answer.length} bytes decoded, ${answer.includes('"errors"') ? answer.slice(0, 300) : 'no errors'}`);
  }
  const spent: Record<string, number[]> = Object.fromEntries(Object.keys(QUERIES).map((name) => [name, []]));
  for (let i = 0; i < WARM_UP + REQUESTS; i++) {
    for (const [name, query] of Object.entries(QUERIES)) {
      const before = cpuMicros(gateway.pid);
      await ask(gateway.url, query);
      if (i >= WARM_UP) spent[name]!.push((cpuMicros(gateway.pid) - before) / 1000);
    }
  }
  // /proc counts in ticks of 10 ms: the mean over many requests, not one request's figure.
  for (const [name, ms] of Object.entries(spent)) {
    say(`${name}: CPU per request ${(ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(1)} ms (mean of ${ms.length} requests)`);
  }
} finally {
  await stopProcess(gateway.child, 10_000);
  await mock.close();
}

// Private: one POST, its body read whole.
async function ask(url: string, query: string): Promise<string> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'accept-encoding': CODING },
    body: JSON.stringify({ query }),
  });
  return response.text();
}

// Private: user and system CPU of a process so far, in µs (clock ticks of 10 ms on Linux).
function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}
