/**
 * The mock upstream at benchmark scale, in its own process (pinned beside the load generator),
 * driven by the bench over IPC. A separate process keeps the mock's CPU out of the load
 * generator's `process.cpuUsage()`.
 *
 * Besides the mock's own call log (arrival times), it records when each answer finished, via
 * Node's `http.server.*` diagnostics channels: sequential round trips need both ends of every
 * call, and this needs no change to `src/`.
 */
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { createMockUpstream, type MockSite } from '../../src/mock-upstream/index.js';
import { CATALOG, UPSTREAM_LATENCY_MS, UPSTREAM_MAX_PAGE_SIZE } from '../config.js';
import { expectedContext, expectedData, type ExpectedContext } from '../workloads/expected.js';
import type { MockCommand, MockInfo, Span } from './mock.js';

const mock = await createMockUpstream({
  catalog: CATALOG,
  latencyMs: UPSTREAM_LATENCY_MS,
  behaviour: { maxPageSize: UPSTREAM_MAX_PAGE_SIZE },
});

let spans: Span[] = [];
// Built on the first `expected` command. Only the live scenario changes the catalog (the stock of
// its sites' lanes), and it runs after every scenario that checks answers.
let expected: ExpectedContext | undefined;
const open = new WeakMap<IncomingMessage, Span>();
const nowMs = (): number => performance.timeOrigin + performance.now();
subscribe('http.server.request.start', (message) => {
  const { request } = message as { request: IncomingMessage };
  const span: Span = { path: new URL(request.url ?? '/', 'http://mock').pathname, start: nowMs(), finish: NaN };
  open.set(request, span);
  spans.push(span);
});
subscribe('http.server.response.finish', (message) => {
  const { request } = message as { request: IncomingMessage; response: ServerResponse };
  const span = open.get(request);
  if (span) span.finish = nowMs();
});

process.on('message', (message: { id: number; command: MockCommand }) => {
  try {
    process.send!({ id: message.id, value: answer(message.command) });
  } catch (error) {
    process.send!({ id: message.id, error: String(error) });
  }
});
process.on('disconnect', () => void mock.close().then(() => process.exit(0)));
process.send!({ id: 0, value: info() });

// Private: the answer to one command from the bench.
function answer(command: MockCommand): unknown {
  switch (command.name) {
    case 'calls': return callsByPath();
    case 'log': return { log: mock.callLog().map(({ path, at }) => ({ path, at })), spans };
    case 'reset':
      mock.resetCounters();
      spans = [];
      return null;
    case 'expireAllTokens':
      mock.expireAllTokens();
      return null;
    case 'tokenTimeouts': return mock.tokenTimeoutsSent();
    case 'distinctGoods': return distinctGoods(command.sites);
    case 'expected':
      expected ??= expectedContext(mock.catalog);
      return expectedData(expected, command.scenario, command.keys);
    case 'mutateStock': return mock.mutateStock(command.options);
    case 'detailCallsBySite': return detailCallsBySite();
  }
}

// Private: requests so far by path (token endpoint included), from the mock's counters.
function callsByPath(): Record<string, number> {
  const paths = new Set(spans.map((span) => span.path));
  return Object.fromEntries([...paths].map((path) => [path, mock.calls(path)]));
}

// Private: site-detail calls since the last reset, by the site code asked for.
function detailCallsBySite(): Record<string, number> {
  const bySite: Record<string, number> = {};
  for (const entry of mock.callLog()) {
    const code = entry.path === '/api/site/detail' ? entry.query.siteCode : undefined;
    if (code !== undefined) bySite[code] = (bySite[code] ?? 0) + 1;
  }
  return bySite;
}

// Private: distinct goods codes in the lanes of the first `sites` sites (page 1 of a site list).
function distinctGoods(sites: number): number {
  const codes = new Set<string>();
  for (const site of mock.catalog.sites.slice(0, sites)) {
    for (const point of site.points) for (const lane of point.cargolanes) if (lane.goodsCode) codes.add(lane.goodsCode);
  }
  return codes.size;
}

// Private: the distinct goods codes a site's lanes hold in stock.
function stockedGoods(site: MockSite): string[] {
  const codes = new Set<string>();
  for (const point of site.points) for (const lane of point.cargolanes) if (lane.goodsCode && lane.stock > 0) codes.add(lane.goodsCode);
  return [...codes];
}

// Private: what the bench needs to address the mock and to pick realistic arguments.
function info(): MockInfo {
  const { catalog } = mock;
  return {
    url: mock.url,
    tokenUrl: mock.tokenUrl,
    clientId: mock.clientId,
    clientSecret: mock.clientSecret,
    siteCodes: catalog.sites.map((site) => site.code),
    goodsCodes: catalog.products.map((product) => product.goodsCode),
    cityCodes: catalog.cities.map((city) => city.code),
    points: catalog.sites.reduce((sum, site) => sum + site.points.length, 0),
    lanes: catalog.sites.reduce((sum, site) => sum + site.points.reduce((n, point) => n + point.cargolanes.length, 0), 0),
    locatedSites: catalog.sites.map((site) => ({ lat: site.lat, lng: site.lng, stockedGoodsCodes: stockedGoods(site) })),
  };
}
