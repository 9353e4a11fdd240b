/**
 * The serving scenarios' checked warm-up: every key's answer from a peer compared with the
 * `data` the mock says is right (`util.isDeepStrictEqual`), `CHECK_CONCURRENCY` requests at a
 * time. A cold peer fills its caches meanwhile, so the load run after it measures warm data.
 * Wrong answers are counted, never thrown: the bench reports them beside the peer's figures.
 */
import { isDeepStrictEqual } from 'node:util';
import { CHECK_CONCURRENCY } from '../config.js';
import type { GraphQLRequest } from './queries.js';

/** One request to check and the `data` its answer must carry. */
export interface CheckItem {
  key: unknown;
  request: GraphQLRequest;
  expected: unknown;
}

/** What the check found. */
export interface CheckResult {
  checked: number;
  /** Clean answers whose `data` differs from the mock's. */
  mismatches: number;
  /** Answers that failed: transport error, not HTTP 200, GraphQL `errors`, or no `data`. */
  failed: number;
  /** The first few wrong answers: key, and the first place where the data differ (or the failure). */
  examples: string[];
}

const EXAMPLES = 3;
const TIMEOUT_MS = 30_000;

/** Post every item to `url` and compare each answer's `data` with its expected value. */
export async function checkAnswers(url: string, items: readonly CheckItem[]): Promise<CheckResult> {
  const result: CheckResult = { checked: 0, mismatches: 0, failed: 0, examples: [] };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++]!;
      const problem = await checkOne(url, item);
      result.checked += 1;
      if (problem === null) continue;
      if (problem.failed) result.failed += 1;
      else result.mismatches += 1;
      if (result.examples.length < EXAMPLES) result.examples.push(`${JSON.stringify(item.key)}: ${problem.detail}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CHECK_CONCURRENCY, items.length) }, worker));
  return result;
}

/** Wrong answers in all (mismatched or failed). */
export function wrongAnswers(check: CheckResult): number {
  return check.mismatches + check.failed;
}

// Private: null when the answer is right, else what is wrong with it.
async function checkOne(url: string, item: CheckItem): Promise<{ failed: boolean; detail: string } | null> {
  let status = 0;
  let text = '';
  try {
    const response = await fetch(url, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(item.request), signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    status = response.status;
    text = await response.text();
    const json = JSON.parse(text) as { data?: unknown; errors?: unknown[] };
    if (status !== 200 || json.errors !== undefined || json.data == null) return { failed: true, detail: `HTTP ${status}: ${text.slice(0, 200)}` };
    if (isDeepStrictEqual(json.data, item.expected)) return null;
    return { failed: false, detail: firstDifference(item.expected, json.data, 'data') ?? 'differs' };
  } catch (error) {
    return { failed: true, detail: `${status === 0 ? '' : `HTTP ${status}: `}${String(error).slice(0, 200)}` };
  }
}

// Private: the path of the first difference between two JSON values, with both sides.
function firstDifference(expected: unknown, actual: unknown, path: string): string | null {
  if (isDeepStrictEqual(expected, actual)) return null;
  const bothObjects = typeof expected === 'object' && expected !== null && typeof actual === 'object' && actual !== null;
  if (bothObjects && Array.isArray(expected) === Array.isArray(actual)) {
    const e = expected as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    if (Array.isArray(e) && e.length !== (a as unknown as unknown[]).length) return `${path}: expected ${e.length} items, got ${(a as unknown as unknown[]).length}`;
    for (const name of new Set([...Object.keys(e), ...Object.keys(a)])) {
      const found = firstDifference(e[name], a[name], Array.isArray(e) ? `${path}[${name}]` : `${path}.${name}`);
      if (found !== null) return found;
    }
  }
  const show = (value: unknown): string => (value === undefined ? 'nothing' : JSON.stringify(value).slice(0, 120));
  return `${path}: expected ${show(expected)}, got ${show(actual)}`;
}
