/**
 * Every error the WebSocket door sends carries `extensions.code`, the one HTTP gives the same
 * document: a mutation (the graph has none) included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../../helpers/gateway.js';
import { openRaw, type RawMessage, type RawSocket } from '../../helpers/websocket.js';

const PRODUCT = '{ product(goodsCode: "G00001") { goodsCode } }';
const BY_VARIABLE = 'query($g: String!) { product(goodsCode: $g) { goodsCode } }';

/** Documents clients get wrong, each refused with a code over HTTP. */
const REFUSED: Array<[string, { query: string; variables?: Record<string, unknown>; operationName?: string }]> = [
  ['a mutation (the schema has none)', { query: 'mutation { anything }' }],
  ['a named mutation of __typename', { query: 'mutation M { __typename }' }],
  ['a syntax error', { query: '{ cities { ' }],
  ['an empty document', { query: '' }],
  ['an unknown field', { query: '{ nope }' }],
  ['a missing required variable', { query: BY_VARIABLE, variables: {} }],
  ['a variable of the wrong type', { query: BY_VARIABLE, variables: { g: 5 } }],
  ['an operationName the document lacks', { query: `query A ${PRODUCT} query B ${PRODUCT}`, operationName: 'Nope' }],
  ['two operations without operationName', { query: `query A ${PRODUCT} query B ${PRODUCT}` }],
  ['fragments alone', { query: 'fragment F on Query { __typename }' }],
  ['a bad argument', { query: '{ cities(page: 0) { total } }' }],
];

let h: Harness;
let socket: RawSocket;
beforeAll(async () => {
  h = await startGateway();
  socket = await openRaw(h.wsUrl);
});
afterAll(async () => {
  socket.ws.close();
  await h.close();
});

const codesOf = (errors: Array<{ extensions?: { code?: unknown } }> | undefined) => (errors ?? []).map((error) => error.extensions?.code);
const errorsIn = (messages: RawMessage[]) => messages.flatMap((message) => (message.type === 'error' ? message.payload : message.payload?.errors ?? []));

describe('GraphQL over WebSocket: error codes', () => {
  it.each(REFUSED)('answers %s with the code HTTP gives it', async (_name, payload) => {
    const overHttp = await fetch(`${h.url}/graphql`, {
      method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' }, body: JSON.stringify(payload),
    });
    const httpCodes = codesOf(((await overHttp.json()) as { errors?: [] }).errors);
    expect(httpCodes.length).toBeGreaterThan(0);
    expect(httpCodes.every((code) => typeof code === 'string')).toBe(true);

    const id = String(REFUSED.findIndex(([, candidate]) => candidate === payload));
    socket.subscribe(id, payload);
    expect(codesOf(errorsIn(await socket.outcome(id)))).toEqual(httpCodes);
  });

  it('refuses a mutation at validation, over HTTP with 400 as any invalid document, in graphql-js 17\'s words', async () => {
    const overHttp = await fetch(`${h.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify({ query: 'mutation { anything }' }),
    });
    expect(overHttp.status).toBe(400);
    expect(await overHttp.json()).toEqual({
      errors: [{ message: 'The mutation operation is not supported by the schema.', locations: [{ line: 1, column: 1 }], extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }],
    });
  });
});
