/**
 * Does Tailcall answer what the gateway answers? Starts the mock (bench scale), the built
 * gateway (`npm run build` first) and Tailcall, sends both the same requests for random keys
 * of every serving scenario, a few at a time (so that Tailcall's `dedupe` sees calls in flight),
 * and compares the answers' `data` with `isDeepStrictEqual`; then a short load on Tailcall for
 * the small and site scenarios, to see it run under load.
 *
 *   npx tsx bench/peers/tailcall-check.ts
 *
 * CHECK_KEYS (default 200) random keys for small and site; every cities page and every deep
 * page (50 sites each: the whole catalog's lanes and their products); BENCH_SECONDS (default 3)
 * per load run, CHECK_LOAD=0 to skip it. Exit 1 on any mismatch or error. A wrong product under
 * a lane is what Tailcall's colliding call keys look like (see `tailcall/vending.graphql`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { ROOT } from '../config.js';
import { postGraphQL, type TimedAnswer } from '../load/graphql-client.js';
import { runLoad } from '../load/load.js';
import { stopProcess, type RunningProcess } from '../processes/child.js';
import { startGateway } from '../processes/gateway.js';
import { startMock } from '../processes/mock.js';
import { tokenFor } from '../scenarios/rest-client.js';
import type { GraphQLRequest } from '../workloads/queries.js';
import { ensureTailcallInstalled, startTailcall, tailcallQuery, tailcallVersions, type TailcallScenario, type TailcallVariables } from './tailcall.js';

const KEYS = Number(process.env.CHECK_KEYS ?? 200);
const LOAD_SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
/** Requests in flight at once during the comparison. */
const PARALLEL = 8;
const DEEP_PAGE_SIZE = 50;
const CITIES_PAGE_SIZE = 10;

/** The gateway's spelling of each scenario (its contract, `schema.graphql`). */
const LANES = 'cargoLanes { stock guidePrice product { goodsCode productName ipName guidePrice } }';
const GATEWAY: Record<TailcallScenario, string> = {
  small: 'query Small($goodsCode: String!) { product(goodsCode: $goodsCode) { productName ipName guidePrice } }',
  site: `query Site($code: String!) { site(code: $code) { code name points { code name ${LANES} } } }`,
  cities: 'query Cities($page: Int!, $pageSize: Int!) { cities(page: $page, pageSize: $pageSize) { items { code name } } }',
  deep: `query Deep($page: Int!, $pageSize: Int!) { sites(page: $page, pageSize: $pageSize) { items { code name points { code name ${LANES} } } } }`,
};

interface Tally { keys: number; mismatched: number; errors: number; lanes: number; wrongLanes: number; samples: string[] }

const installed = ensureTailcallInstalled();
if (!installed.ok) {
  console.error(`Tailcall cannot run here: ${installed.why}`);
  process.exit(1);
}
if (!existsSync(join(ROOT, 'dist/main.js'))) {
  console.error('dist/main.js is missing: run `npm run build` first');
  process.exit(1);
}
say(`Tailcall: ${JSON.stringify(tailcallVersions())}`);

const mock = await startMock();
const running: RunningProcess[] = [];
let failed = false;
try {
  const gateway = await startGateway(mock);
  running.push(gateway);
  const tailcall = await startTailcall(mock.url, await tokenFor(mock));
  running.push(tailcall);
  const sample = <T>(items: readonly T[], n: number): T[] => [...items].sort(() => Math.random() - 0.5).slice(0, n);
  const sitePages = Math.ceil(mock.siteCodes.length / DEEP_PAGE_SIZE);
  const cityPages = Math.ceil(mock.cityCodes.length / CITIES_PAGE_SIZE);
  const plan: { [S in TailcallScenario]: Array<TailcallVariables[S]> } = {
    small: sample(mock.goodsCodes, KEYS).map((goodsCode) => ({ goodsCode })),
    site: sample(mock.siteCodes, KEYS).map((code) => ({ code })),
    cities: Array.from({ length: cityPages }, (_, i) => ({ page: i + 1, pageSize: CITIES_PAGE_SIZE })),
    deep: Array.from({ length: sitePages }, (_, i) => ({ page: i + 1, pageSize: DEEP_PAGE_SIZE })),
  };
  for (const scenario of ['small', 'site', 'cities', 'deep'] as const) {
    const tally = await compare(scenario, plan[scenario], gateway.url, tailcall.url);
    failed ||= tally.mismatched > 0 || tally.errors > 0;
    const lanes = tally.lanes > 0 ? `, lanes ${tally.lanes} (${tally.wrongLanes} with another answer)` : '';
    say(`${scenario}: ${tally.keys} keys, ${tally.mismatched} mismatched, ${tally.errors} with errors${lanes}`);
    for (const line of tally.samples) say(`  ${line}`);
  }
  say(`upstream calls so far: ${JSON.stringify(await mock.calls())}`);
  if (process.env.CHECK_LOAD !== '0') await load(tailcall.url, mock.goodsCodes, mock.siteCodes);
} catch (error) {
  failed = true;
  console.error(error);
} finally {
  for (const server of running.reverse()) await stopProcess(server.child);
  await mock.close();
}
process.exit(failed ? 1 : 0);

// Private: a line of the report, on stdout.
function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

// Private: both servers' answers for every key, `PARALLEL` keys at a time.
async function compare<S extends TailcallScenario>(scenario: S, keys: Array<TailcallVariables[S]>, gatewayUrl: string, tailcallUrl: string): Promise<Tally> {
  const tally: Tally = { keys: keys.length, mismatched: 0, errors: 0, lanes: 0, wrongLanes: 0, samples: [] };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < keys.length) {
      const key = keys[next++]!;
      const gatewayRequest: GraphQLRequest = { query: GATEWAY[scenario], variables: { ...key } };
      const [expected, actual] = await Promise.all([
        postGraphQL(`${gatewayUrl}/graphql`, gatewayRequest),
        postGraphQL(`${tailcallUrl}/graphql`, tailcallQuery(scenario, key)),
      ]);
      judge(tally, JSON.stringify(key), expected, actual);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return tally;
}

// Private: count one key's outcome; keep a few lines that say where the answers part.
function judge(tally: Tally, key: string, expected: TimedAnswer, actual: TimedAnswer): void {
  const note = (line: string): void => { if (tally.samples.length < 8) tally.samples.push(`${key}: ${line}`); };
  for (const [who, answer] of [['gateway', expected], ['tailcall', actual]] as const) {
    if (answer.status !== 200 || answer.json.errors?.length) {
      tally.errors += 1;
      note(`${who} HTTP ${answer.status} ${JSON.stringify(answer.json.errors?.[0] ?? '').slice(0, 200)}`);
    }
  }
  const expectedLanes = lanesOf(expected.json.data);
  const actualLanes = lanesOf(actual.json.data);
  tally.lanes += expectedLanes.length;
  expectedLanes.forEach((lane, i) => { if (!isDeepStrictEqual(lane, actualLanes[i])) tally.wrongLanes += 1; });
  if (isDeepStrictEqual(expected.json.data, actual.json.data)) return;
  tally.mismatched += 1;
  note(firstDifference(expected.json.data, actual.json.data, 'data'));
}

// Private: every lane in an answer, in order (site and deep scenarios; none otherwise).
function lanesOf(data: unknown): unknown[] {
  const lanes: unknown[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === 'object') {
      for (const [name, child] of Object.entries(value)) {
        if (name === 'cargoLanes' && Array.isArray(child)) lanes.push(...child);
        else walk(child);
      }
    }
  };
  walk(data);
  return lanes;
}

// Private: the path of the first difference, with both values.
function firstDifference(expected: unknown, actual: unknown, path: string): string {
  if (expected !== null && actual !== null && typeof expected === 'object' && typeof actual === 'object') {
    const names = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    for (const name of names) {
      const [a, b] = [(expected as Record<string, unknown>)[name], (actual as Record<string, unknown>)[name]];
      if (!isDeepStrictEqual(a, b)) return firstDifference(a, b, `${path}.${name}`);
    }
  }
  return `${path}: gateway ${JSON.stringify(expected)?.slice(0, 160)}, tailcall ${JSON.stringify(actual)?.slice(0, 160)}`;
}

// Private: warm every key once, then random keys under load, small and site.
async function load(tailcallUrl: string, goodsCodes: readonly string[], siteCodes: readonly string[]): Promise<void> {
  const url = `${tailcallUrl}/graphql`;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
  const runs = [
    { name: 'small', keys: goodsCodes.map((goodsCode) => ({ goodsCode })), body: () => JSON.stringify(tailcallQuery('small', { goodsCode: pick(goodsCodes) })) },
    { name: 'site', keys: siteCodes.map((code) => ({ code })), body: () => JSON.stringify(tailcallQuery('site', { code: pick(siteCodes) })) },
  ] as const;
  for (const run of runs) {
    const warm = run.keys.map((key) => JSON.stringify(tailcallQuery(run.name, key as never)));
    await runLoad({ url, seconds: 120, amount: warm.length, nextBody: () => warm.pop() ?? run.body() });
    const result = await runLoad({ url, seconds: LOAD_SECONDS, nextBody: run.body, checkBodies: true });
    say(`load ${run.name} (${LOAD_SECONDS} s, random key, warm): ${result.requestsPerSecond} req/s, p50 ${result.latencyP50Ms} ms, p99 ${result.latencyP99Ms} ms, `
      + `${result.clientErrors} errors, ${result.bytesPerResponse} B/answer, load generator ${result.loadGeneratorCpuPercent} % CPU`);
  }
}
