/**
 * The client side of the gateway under generated requests: documents built from the schema, and
 * malformed HTTP around them, against a gateway over the normal mock upstream.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../helpers/gateway.js';
import { dataProblems, preview, shapeProblems } from './answer-checks.js';
import { generatedOperation, type GeneratedOperation } from './documents.js';
import { httpRequest, jsonPost, send, type RawHttpRequest, type RawHttpResponse } from './http-requests.js';
import { compactText, fuzzParameters, heapAfterGc, LONG_RUN, MIB } from './settings.js';

let h: Harness;

beforeAll(async () => {
  h = await startGateway({ env: { LOG_LEVEL: 'warn' } });
});

afterAll(async () => {
  await h?.close();
});

/** The operation, printed readably in a failure report. */
const operation = generatedOperation.map((op) =>
  Object.assign(op, { [fc.toStringMethod]: () => `{ query: ${compactText(op.query)}, variables: ${compactText(JSON.stringify(op.variables))}, operationName: ${op.operationName} }` }));

describe('the gateway under generated requests', () => {
  it('answers generated documents with coded, well-typed GraphQL, no 5xx, no secret, and no upstream call for a refusal', async () => {
    const heapBefore = heapAfterGc();
    await fc.assert(
      fc.asyncProperty(operation, async (op) => {
        const { response, problems } = await exchange(jsonPost(op));
        if (problems.length === 0 && isJson(response)) {
          const body = JSON.parse(response.text);
          problems.push(...dataProblems(op.query, body.data, op.operationName));
        }
        expect(problems, `${problems.join("; ")} <- HTTP ${response.status} ${compactText(response.text, 600)}`).toEqual([]);
      }),
      fuzzParameters(25),
    );
    expect((heapAfterGc() - heapBefore) / MIB).toBeLessThan(64);
  });

  it('answers malformed HTTP (methods, content types, encodings, duplicate parameters, odd headers) with coded refusals', async () => {
    const requests = operation.chain((op) => httpRequest(op)).map((req) =>
      Object.assign(req, { [fc.toStringMethod]: () => `${req.method} ${compactText(req.path, 300)} ${JSON.stringify(req.headers.map(([n, v]) => [n, compactText(v, 80)]))} ${req.body ? compactText(req.body.toString('utf8'), 600) : ''}` }));
    await fc.assert(
      fc.asyncProperty(requests, async (req) => {
        const { response, problems } = await exchange(req);
        expect(problems, `${problems.join("; ")} <- HTTP ${response.status} ${compactText(response.text, 600)}`).toEqual([]);
      }),
      fuzzParameters(25),
    );
  });

  it('keeps no memory for requests full of junk: comments, unused variables, long strings', async () => {
    const junk = (n: number) => 'j'.repeat(n);
    const requests = [
      (i: number) => ({ query: `{ cities(pageSize: 1) { total } } # ${i} ${junk(400_000)}` }),
      (i: number) => ({ query: `query($j: String) { cities(pageSize: 1) { total } } # ${i}`, variables: { j: junk(400_000) } }),
      (i: number) => ({ query: `{ city(code: "${i}${junk(400_000)}") { code } }` }),
      (i: number) => ({ query: `{ cities(pageSize: 1) { total } }`, variables: { [`junk${i}`]: junk(400_000) } }),
    ];
    await h.query('{ cities(pageSize: 1) { total } }');
    const heapBefore = heapAfterGc();
    const count = LONG_RUN ? 100 : 8;
    for (let i = 0; i < count; i += 1) {
      const body = requests[i % requests.length]!(i);
      const { problems } = await exchange({ ...jsonPost(body as GeneratedOperation), body: Buffer.from(JSON.stringify(body)) });
      expect(problems, problems.join("; ")).toEqual([]);
    }
    // `count` requests of 400 KB each went through (3.2 MB in the short pass); what is kept must
    // be far less than their sum: at most 100 KB a request.
    expect((heapAfterGc() - heapBefore) / MIB).toBeLessThan((count * 0.1) + 1);
  });
});

// Private: sends `req` and checks what every answer must be.
async function exchange(req: RawHttpRequest): Promise<{ response: RawHttpResponse; problems: string[] }> {
  const callsBefore = h.mock.callLog().length;
  const response = await send(h.url, req);
  const problems: string[] = [];
  if (response.status >= 500) problems.push(`HTTP ${response.status}`);
  const noBody = req.method === 'HEAD' || req.method === 'OPTIONS' || response.status === 204 || response.status === 304;
  const graphqlPath = new URL(req.path, 'http://x').pathname === '/graphql';
  let executed = true;
  if (!noBody && isJson(response)) {
    const body = safeParse(response.text);
    problems.push(...shapeProblems(body));
    if (response.status >= 400 && !(body as { errors?: unknown })?.errors) problems.push('a refusal without errors');
    executed = typeof body === 'object' && body !== null && 'data' in body;
  } else if (!noBody && response.status >= 400 && graphqlPath) {
    problems.push(`a refusal that is not coded GraphQL (${response.headers['content-type']}): ${preview(response.text)}`);
  }
  if (response.status >= 400) executed = false;
  const calls = h.mock.callLog().length - callsBefore;
  if (!executed && calls > 0) problems.push(`refused (HTTP ${response.status}) yet cost ${calls} upstream call(s)`);
  problems.push(...secretsIn(response));
  return { response, problems };
}

function isJson(response: RawHttpResponse): boolean {
  return /json/.test(String(response.headers['content-type'] ?? ''));
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return `not JSON: ${text.slice(0, 100)}`;
  }
}

// Private: the upstream credentials, in every form the gateway sends them, and its tokens.
function secretsIn(response: RawHttpResponse): string[] {
  const { clientId, clientSecret } = h.mock;
  const forms = [clientSecret, encodeURIComponent(clientSecret), Buffer.from(`${clientId}:${clientSecret}`).toString('base64'), ...h.mock.issuedTokens()];
  const text = response.text + JSON.stringify(response.headers);
  return forms.filter((form) => text.includes(form)).map((form) => `an answer contains a secret (${form.slice(0, 4)}…)`);
}
