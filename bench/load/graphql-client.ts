/** One GraphQL request, timed, for the scenarios that measure single answers rather than load. */
import type { GraphQLRequest } from '../workloads/queries.js';

/** An answer and how long it took, from sending to the last byte. */
export interface TimedAnswer {
  ms: number;
  status: number;
  /** The exact body bytes (the bare server replays them). */
  bytes: Buffer;
  json: { data?: unknown; errors?: Array<{ message: string; extensions?: { code?: string } }> };
}

/** POST `request` to `url` (a `/graphql` endpoint). */
export async function postGraphQL(url: string, request: GraphQLRequest): Promise<TimedAnswer> {
  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(request),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const ms = performance.now() - started;
  return { ms, status: response.status, bytes, json: JSON.parse(bytes.toString('utf8')) as TimedAnswer['json'] };
}

/** `answer`, or an error naming the first GraphQL error, when it is not a clean 200. */
export function expectClean(answer: TimedAnswer, what: string): TimedAnswer {
  const first = answer.json.errors?.[0];
  if (answer.status !== 200 || first || answer.json.data == null) {
    const detail = first ? `${first.extensions?.code ?? ''} ${first.message}` : answer.bytes.toString('utf8').slice(0, 300);
    throw new Error(`${what}: HTTP ${answer.status}: ${detail}`);
  }
  return answer;
}
