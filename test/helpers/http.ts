/**
 * Raw HTTP against a harness's gateway, for tests that need request headers, response headers
 * and statuses (`Harness.query` gives only the body), plus readers of `/metrics` and the logs.
 */
import type { Harness } from './gateway.js';

export interface HttpAnswer {
  status: number;
  headers: Headers;
  /** The body parsed as JSON, or `undefined` when it is not JSON. */
  body: any;
  text: string;
}

export interface PostOptions {
  variables?: Record<string, unknown>;
  operationName?: string;
  headers?: Record<string, string>;
}

/** POSTs a GraphQL request to /graphql. */
export function post(h: Harness, query: string, options: PostOptions = {}): Promise<HttpAnswer> {
  const { variables, operationName, headers = {} } = options;
  return send(`${h.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body: JSON.stringify({ query, variables, operationName }),
  });
}

/** GETs `path` (e.g. `/readyz`). */
export function get(h: Harness, path: string, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  return send(`${h.url}${path}`, { headers });
}

async function send(url: string, init: RequestInit): Promise<HttpAnswer> {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
}

/** The /metrics text (fails the test unless it answers 200). */
export async function scrape(h: Harness, headers: Record<string, string> = {}): Promise<string> {
  const answer = await get(h, '/metrics', headers);
  if (answer.status !== 200) throw new Error(`/metrics answered ${answer.status}: ${answer.text}`);
  return answer.text;
}

/**
 * The sum of the samples of `name` whose labels include `labels` (0 when there is none), from
 * the Prometheus text format.
 */
export function metric(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const sample = Object.fromEntries([...(match[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => sample[key] === value)) sum += Number(match[4]);
  }
  return sum;
}

/** The gateway's log lines, parsed. */
export function logEntries(h: Harness): any[] {
  return h.logs.flatMap((chunk) => chunk.split('\n')).filter((line) => line.trim() !== '').map((line) => JSON.parse(line));
}

/** The `graphql request` lines. */
export function requestLines(h: Harness): any[] {
  return logEntries(h).filter((entry) => entry.msg === 'graphql request');
}

/** Resolves once `check` holds; fails after `timeoutMs` (generous: a busy machine is slow, not wrong). */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
