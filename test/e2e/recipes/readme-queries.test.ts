/**
 * Every example query of the documentation (README.md and docs/) answers data in demo mode, as a
 * newcomer would run it after `npm start`: each ```graphql block, with the ```json block right
 * after it as its variables, sent to the gateway in demo mode, must answer without errors and with
 * no empty list and no null field at its top. A block marked `<!-- not run: reason -->` (a
 * subscription, or a refusal shown on purpose) is listed as skipped, with its reason, rather than
 * left out silently.
 * The curl examples run too (their `--data` with their `Accept`): each part of an answer in parts,
 * or a subscription's first event, without errors, its first data non-empty. So do the commands
 * that run a recipe with the project's Node (`npx node --input-type=module -e "…"`): what they
 * print must be the recipe's result, with no empty list or null at its top.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type Demo } from '../../helpers/demo.js';
import { documentation } from '../../helpers/docs.js';

interface Example {
  title: string;
  query: string;
  variables?: Record<string, unknown>;
  skip?: string;
}

/** The ```graphql blocks of `readme`, each with its variables and its not-run marker, if any. */
export function readmeExamples(readme: string): Example[] {
  const block = /(?:<!-- not run: ([^>]*?) -->\n)?^```graphql\n([\s\S]*?)^```\n(?:```json\n([\s\S]*?)^```\n)?/gm;
  return [...readme.matchAll(block)].map(([, skip, query, variables], i) => ({
    title: `${i + 1}. ${/^#\s*(.*)$/m.exec(query!)?.[1] ?? query!.trim().split('\n')[0]}`,
    query: query!,
    ...(variables && { variables: JSON.parse(variables) }),
    ...(skip && { skip }),
  }));
}

/** The documentation's curl commands that send a query: the body of their `--data`, and their `Accept`. */
export function curlExamples(readme: string): Array<{ title: string; body: string; accept: string }> {
  const commands = [...readme.matchAll(/^```sh\n([\s\S]*?)^```/gm)].flatMap(([, block]) => block!.replace(/\\\n\s*/g, ' ').split('\n'));
  return commands.flatMap((line) => {
    const body = /--data '([^']*"query"[^']*)'/.exec(line)?.[1];
    if (!line.startsWith('curl') || body === undefined) return [];
    const accept = /-H 'accept: ([^']+)'/i.exec(line)?.[1] ?? 'application/graphql-response+json';
    return [{ title: `curl, ${accept}: ${(JSON.parse(body) as { query: string }).query.slice(0, 60)}`, body, accept }];
  });
}

/** The documentation's `npx node --input-type=module -e "…"` commands: the script of each. */
export function nodeScripts(text: string): string[] {
  const lines = [...text.matchAll(/^```sh\n([\s\S]*?)^```/gm)].flatMap(([, block]) => block!.split('\n'));
  return lines.flatMap((line) => /^npx node --input-type=module -e "(.*)"$/.exec(line)?.[1] ?? []);
}

// Private: the JSON payloads of an answer, whole or in parts (multipart/mixed or server-sent
// events); a stream that does not end (a subscription) is read up to its first event.
async function payloadsOf(response: Response, controller: AbortController): Promise<Array<{ data?: unknown; errors?: unknown[]; incremental?: Array<{ errors?: unknown[] }> }>> {
  const type = response.headers.get('content-type') ?? '';
  if (!/multipart|event-stream/.test(type)) return [await response.json()];
  let text = '';
  const decoder = new TextDecoder();
  const reader = response.body!.getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    text += decoder.decode(chunk.value, { stream: true });
    if (type.includes('event-stream') && /^data: .*\n\n/m.test(text) && !/"hasNext":true/.test(text)) break;
  }
  controller.abort();
  const json = type.includes('event-stream') ? [...text.matchAll(/^data: (\{.*\})$/gm)].map(([, line]) => line!) : text.split('\n').filter((line) => line.startsWith('{'));
  return json.map((line) => JSON.parse(line));
}

/** The paths under `data` that hold an empty list or a null, top-level fields included. */
function emptyPlaces(value: unknown, path = 'data'): string[] {
  if (value === null || value === undefined) return [path];
  if (Array.isArray(value)) return value.length === 0 ? [path] : value.flatMap((item, i) => emptyPlaces(item, `${path}.${i}`));
  if (typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) => (item === null && path !== 'data' ? [] : emptyPlaces(item, `${path}.${key}`)));
}

const EXAMPLES = readmeExamples(documentation());

describe('the documentation’s example queries, against the demo gateway', () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemo();
  });
  afterAll(() => demo?.stop());

  it('finds the documentation’s examples, with the variables of the one that takes some', () => {
    expect(EXAMPLES.length).toBeGreaterThanOrEqual(6);
    expect(EXAMPLES.find((example) => example.query.includes('$code'))?.variables).toEqual({ code: expect.any(String) });
  });

  for (const example of EXAMPLES) {
    it.skipIf(example.skip !== undefined)(`${example.title} answers non-empty data${example.skip ? ` (not run: ${example.skip})` : ''}`, async () => {
      const response = await fetch(demo.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
        body: JSON.stringify({ query: example.query, variables: example.variables }),
      });
      const { data, errors } = (await response.json()) as { data?: unknown; errors?: unknown[] };
      expect(errors, example.query).toBeUndefined();
      expect(emptyPlaces(data), example.query).toEqual([]);
    });
  }

  const CURLS = curlExamples(documentation());
  it('finds the documentation’s curl examples: parts over multipart and SSE, and a subscription', () => {
    expect(CURLS.map((curl) => curl.accept)).toEqual(expect.arrayContaining(['multipart/mixed', 'text/event-stream']));
  });

  for (const curl of CURLS) {
    it(`${curl.title} answers non-empty data`, async () => {
      const controller = new AbortController();
      const response = await fetch(demo.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: curl.accept }, body: curl.body, signal: controller.signal });
      const payloads = await payloadsOf(response, controller);
      expect(payloads.length, curl.body).toBeGreaterThan(0);
      for (const payload of payloads) {
        expect(payload.errors, curl.body).toBeUndefined();
        for (const part of payload.incremental ?? []) expect(part.errors, curl.body).toBeUndefined();
      }
      expect(emptyPlaces(payloads[0]!.data), curl.body).toEqual([]);
    });
  }

  const SCRIPTS = nodeScripts(documentation());
  it('finds the documentation’s command that runs a recipe', () => {
    expect(SCRIPTS.length).toBeGreaterThanOrEqual(1);
  });

  for (const script of SCRIPTS) {
    it(`npx node -e "${script.slice(0, 50)}…" prints the recipe’s result`, async () => {
      // `npx node` is the project's Node, node_modules/.bin/node; the demo's address replaces localhost's.
      const node = new URL('../../../node_modules/.bin/node', import.meta.url).pathname;
      const code = script.replaceAll('http://localhost:4000/graphql', demo.url);
      const { stdout } = await promisify(execFile)(node, ['--input-type=module', '-e', code], { cwd: new URL('../../..', import.meta.url).pathname });
      const result = JSON.parse(stdout) as Record<string, unknown>;
      expect(Object.keys(result).length, stdout).toBeGreaterThan(0);
      expect(emptyPlaces(result), stdout).toEqual([]);
    });
  }

  it('reads a marker, and the variables after a block', () => {
    const text = '<!-- not run: a subscription -->\n```graphql\nsubscription { a }\n```\n```graphql\n# B\nquery ($c: String!) { b(c: $c) }\n```\n```json\n{ "c": "x" }\n```\n';
    expect(readmeExamples(text)).toEqual([
      { title: '1. subscription { a }', query: 'subscription { a }\n', skip: 'a subscription' },
      { title: '2. B', query: '# B\nquery ($c: String!) { b(c: $c) }\n', variables: { c: 'x' } },
    ]);
  });
});
