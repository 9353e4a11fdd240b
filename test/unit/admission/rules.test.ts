/**
 * The admission's rules on their own (admission/): what each check answers, without a door;
 * test/e2e/protection/doors.test.ts sends the same refusals through every door.
 */
import { clockReading } from '../../helpers/upstream.js';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/base/config/persisted-operations.js';
import { createAdmission } from '../../../src/admission/admission.js';
import { createKeyCheck, type HeaderReader } from '../../../src/admission/api-key.js';
import { csrfRefusal } from '../../../src/admission/csrf.js';
import { allowListed } from '../../../src/admission/persisted.js';
import { refusalError } from '../../../src/admission/refusal.js';

const headers = (values: Record<string, string>): HeaderReader => ({ get: (name) => values[name] ?? null });
const KEY = 'a-key-long-enough-0001';
const LISTED = '{ cities { total } }';
const list = { file: 'list.json', documents: new Map([[sha256Hex(LISTED), LISTED]]) };
const req = (address: string) => ({ socket: { remoteAddress: address }, headers: {} }) as unknown as IncomingMessage;

describe('the admission rules', () => {
  it('knows a client by its key’s fingerprint, and says whether a refused one was missing or wrong', () => {
    const check = createKeyCheck([KEY]);
    expect(check(headers({ 'x-api-key': KEY }))).toEqual({ client: expect.stringMatching(/^key:[0-9a-f]{12}$/) });
    expect(check(headers({ authorization: `Bearer ${KEY}` }))).toEqual(check(headers({ 'x-api-key': KEY })));
    expect(check(headers({}))).toMatchObject({ code: 'UNAUTHENTICATED', status: 401, message: 'An API key is required', headers: { 'www-authenticate': 'Bearer realm="vending-graph"' } });
    expect(check(headers({ 'x-api-key': 'wrong' }))).toMatchObject({ message: 'The API key is not valid' });
    // Another scheme presents no key.
    expect(check(headers({ authorization: `Basic ${KEY}` }))).toMatchObject({ message: 'An API key is required' });
    expect(createKeyCheck([])(headers({}))).toEqual({ client: undefined });
  });

  it('applies one allow-list rule: a document, no hash, an unknown hash, a listed one', () => {
    expect(allowListed(list, { query: LISTED })).toMatchObject({ code: 'PERSISTED_QUERY_ONLY', status: 400 });
    expect(allowListed(list, { query: '' })).toMatchObject({ code: 'PERSISTED_QUERY_ID_REQUIRED', status: 400 });
    expect(allowListed(list, { extensions: { persistedQuery: { sha256Hash: sha256Hex(LISTED) } } })).toMatchObject({ code: 'PERSISTED_QUERY_ID_REQUIRED' });
    expect(allowListed(list, { extensions: { persistedQuery: { version: 1, sha256Hash: sha256Hex('{ x }') } } })).toMatchObject({ code: 'PERSISTED_QUERY_NOT_IN_LIST', status: 404 });
    expect(allowListed(list, { extensions: { persistedQuery: { version: 1, sha256Hash: sha256Hex(LISTED).toUpperCase() } } })).toEqual({ query: LISTED });
  });

  it('reads the id from documentId (prefixed or plain), doc_id or id, the first present winning', () => {
    const hash = sha256Hex(LISTED);
    const relay = { documents: new Map([['Relay-Id_1', LISTED], [hash, LISTED]]) };
    expect(allowListed(relay, { documentId: `sha256:${hash.toUpperCase()}` })).toEqual({ query: LISTED });
    expect(allowListed(relay, { documentId: hash })).toEqual({ query: LISTED });
    expect(allowListed(relay, { doc_id: 'Relay-Id_1' })).toEqual({ query: LISTED });
    expect(allowListed(relay, { id: 'Relay-Id_1' })).toEqual({ query: LISTED });
    // A plain id that is not hex keeps its case: Relay ids may be any string.
    expect(allowListed(relay, { doc_id: 'relay-id_1' })).toMatchObject({ code: 'PERSISTED_QUERY_NOT_IN_LIST' });
    expect(allowListed(relay, { documentId: 'unknown', doc_id: 'Relay-Id_1' })).toMatchObject({ code: 'PERSISTED_QUERY_NOT_IN_LIST' });
    expect(allowListed(relay, { documentId: 42, id: 'Relay-Id_1' })).toEqual({ query: LISTED });
    expect(allowListed(relay, { documentId: '' })).toMatchObject({ code: 'PERSISTED_QUERY_ID_REQUIRED' });
    expect(allowListed(relay, { query: LISTED, documentId: hash })).toMatchObject({ code: 'PERSISTED_QUERY_ONLY' });
  });

  it('swaps the allow-list on a reload, and refuses one where the gateway has no list', () => {
    const config = { apiKeys: [], rateLimitPerMinute: 0, csrfPrevention: false, maxQueryBytes: 1e4, maxVariablesBytes: 1e4 };
    const admission = createAdmission({ ...config, persistedOperations: { ...list, setting: 'auto', maxBytes: 4096, format: 'codegen' } });
    expect(admission.persisted({ id: 'new' })).toMatchObject({ code: 'PERSISTED_QUERY_NOT_IN_LIST' });
    admission.replaceList({ file: 'list.json', setting: 'relay', maxBytes: 4096, format: 'relay', documents: new Map([['new', LISTED]]) });
    expect(admission.persisted({ id: 'new' })).toEqual({ query: LISTED });
    expect(() => createAdmission(config).replaceList({ ...list, setting: 'auto', maxBytes: 4096, format: 'codegen' })).toThrow(/without PERSISTED_OPERATIONS_FILE/);
  });

  it('asks a CSRF header of simple requests only', () => {
    expect(csrfRefusal(headers({}))).toMatchObject({ code: 'CSRF_HEADER_REQUIRED', status: 403 });
    expect(csrfRefusal(headers({ 'content-type': 'text/plain;charset=utf-8' }))).toMatchObject({ code: 'CSRF_HEADER_REQUIRED' });
    expect(csrfRefusal(headers({ 'content-type': 'application/x-www-form-urlencoded', 'apollo-require-preflight': 'true' }))).toBeUndefined();
    expect(csrfRefusal(headers({ 'content-type': 'application/json' }))).toBeUndefined();
  });

  it('checks the query before the variables, and variables given as JSON text as well', () => {
    const admission = createAdmission({ apiKeys: [], rateLimitPerMinute: 0, csrfPrevention: false, maxQueryBytes: 1024, maxVariablesBytes: 1024 });
    const long = 'x'.repeat(1025);
    expect(admission.parameters(long, { v: long })).toMatchObject({ code: 'QUERY_TOO_LARGE', status: 413 });
    expect(admission.parameters('{ a }', JSON.stringify({ v: long }))).toMatchObject({ code: 'VARIABLES_TOO_LARGE', status: 413 });
    expect(admission.parameters('{ a }', { v: 'short' })).toBeUndefined();
    expect(admission.persisted({ query: '{ a }' })).toBeUndefined();
  });

  it('takes a request’s verdict once and keeps it for every later step, and refuses with Retry-After', () => {
    let now = 0;
    const { rate } = createAdmission({ apiKeys: [], rateLimitPerMinute: 1, csrfPrevention: false, maxQueryBytes: 1024, maxVariablesBytes: 1024 }, { clock: clockReading(() => now) });
    const first = req('10.0.0.1');
    const request = { client: undefined, verdict: undefined };
    // Before its body, on the GraphQL road, for a batch: one token, however many steps ask.
    for (let step = 0; step < 3; step += 1) expect(rate.arrive(request, first)).toEqual({ allowed: true });
    const next = req('10.0.0.1'); // the same client's next request: the bucket is empty
    const nextRequest = { client: undefined, verdict: undefined };
    const taken = rate.arrive(nextRequest, next);
    expect(taken).toEqual({ allowed: false, retryAfterS: 60 });
    expect(rate.arrive(nextRequest, next)).toBe(taken); // its refusal is kept too, on its request object
    expect(nextRequest.verdict).toBe(taken);
    expect(rate.refusal(taken as { allowed: false; retryAfterS: number })).toMatchObject({ code: 'RATE_LIMITED', status: 429, headers: { 'retry-after': '60' } });
    expect(rate.take(undefined, req('10.0.0.2'))).toEqual({ allowed: true });
    expect(rate.batch(undefined, req('10.0.0.3'), 2)).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect((rate.batch(undefined, req('10.0.0.3'), 2) as { headers?: object }).headers).toBeUndefined();
    now += 60_000;
    expect(rate.take(undefined, first)).toEqual({ allowed: true });
  });

  it('turns a refusal into the GraphQL error yoga answers with its status and headers', () => {
    const error = refusalError(createKeyCheck([KEY])(headers({})) as never);
    expect(error.extensions).toEqual({ code: 'UNAUTHENTICATED', http: { status: 401, headers: { 'www-authenticate': 'Bearer realm="vending-graph"' } } });
  });
});
