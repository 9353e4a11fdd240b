/**
 * Requests sent with `node:http` exactly as generated (fetch would tidy them): any method, path,
 * headers (duplicates included) and body bytes. Also the generated malformed HTTP: methods,
 * content types, encodings, duplicate parameters and odd headers around a GraphQL operation.
 */
import { request } from 'node:http';
import fc from 'fast-check';
import type { GeneratedOperation } from './documents.js';

export interface RawHttpRequest {
  method: string;
  /** Path and query string. */
  path: string;
  /** Header name and value pairs; a name may repeat. */
  headers: Array<[string, string]>;
  body?: Buffer;
}

export interface RawHttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Sends `req` to `baseUrl` and reads the whole answer (10 s at most). */
export function send(baseUrl: string, req: RawHttpRequest): Promise<RawHttpResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    // A repeated name is sent as repeated header lines.
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of req.headers) {
      const seen = headers[name];
      headers[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
    }
    // Node sends a DELETE's or GET's body without a length unless told: the server would read
    // those bytes as the next request.
    if (req.body !== undefined && headers['transfer-encoding'] === undefined) headers['content-length'] = String(req.body.length);
    const outgoing = request({ host: url.hostname, port: url.port, method: req.method, path: req.path, headers, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer in 10 s to ${req.method} ${req.path.slice(0, 80)}`)));
    outgoing.on('error', reject);
    outgoing.end(req.body);
  });
}

const ACCEPT = 'application/graphql-response+json';

/** The operation as a JSON POST, the way clients send it. */
export function jsonPost(op: GeneratedOperation, extraHeaders: Array<[string, string]> = []): RawHttpRequest {
  return {
    method: 'POST',
    path: '/graphql',
    headers: [['content-type', 'application/json'], ['accept', ACCEPT], ...extraHeaders],
    body: Buffer.from(JSON.stringify(op)),
  };
}

/** The operation as a GET with its parameters in the query string. */
export function getRequest(op: GeneratedOperation, extraHeaders: Array<[string, string]> = []): RawHttpRequest {
  const search = new URLSearchParams({ query: op.query, variables: JSON.stringify(op.variables) });
  if (op.operationName) search.set('operationName', op.operationName);
  return { method: 'GET', path: `/graphql?${search}`, headers: [['accept', ACCEPT], ...extraHeaders] };
}

/** One operation wrapped in well-formed or malformed HTTP. */
export function httpRequest(op: GeneratedOperation): fc.Arbitrary<RawHttpRequest> {
  const json = Buffer.from(JSON.stringify(op));
  const oddHeader = fc.constantFrom<Array<[string, string]>>(
    [], [], [],
    [['accept', 'application/xml']], [['accept', '*/*']], [['accept', 'text/event-stream']], [['accept', 'multipart/mixed']],
    [['accept', 'application/json;q=0, text/html']], [['x-request-id', 'a'.repeat(200)]], [['x-request-id', '../../etc/passwd']],
    [['x-odd', 'y'.repeat(8000)]], [['content-encoding', 'gzip']], [['content-encoding', 'br']], [['transfer-encoding', 'chunked']],
    [['authorization', 'Bearer nothing']], [['x-api-key', '']], [['origin', 'https://evil.example']],
    [['x-graphql-yoga-csrf', '1']], [['if-none-match', 'W/"x", "y"']], [['content-type', 'text/plain']],
  );
  const encoded = fc.constantFrom<RawHttpRequest>(
    jsonPost(op),
    jsonPost(op),
    getRequest(op),
    { ...jsonPost(op), headers: [['content-type', 'application/json; charset=latin1'], ['accept', ACCEPT]] },
    { ...jsonPost(op), headers: [['content-type', 'application/graphql'], ['accept', ACCEPT]], body: Buffer.from(op.query) },
    { ...jsonPost(op), headers: [['content-type', 'text/plain'], ['accept', ACCEPT]] },
    { ...jsonPost(op), headers: [['accept', ACCEPT]] },
    { ...jsonPost(op), headers: [['content-type', 'application/xml'], ['accept', ACCEPT]] },
    { ...jsonPost(op), headers: [['content-type', 'multipart/form-data; boundary=zz'], ['accept', ACCEPT]] },
    { ...jsonPost(op), headers: [['content-type', 'application/x-www-form-urlencoded'], ['accept', ACCEPT]], body: Buffer.from(new URLSearchParams({ query: op.query }).toString()) },
    { ...jsonPost(op), headers: [['content-type', 'application/json'], ['content-type', 'text/plain'], ['accept', ACCEPT]] },
    { ...jsonPost(op), body: Buffer.concat([json.subarray(0, json.length >> 1)]) },
    { ...jsonPost(op), body: Buffer.from(`[${json}]`) },
    { ...jsonPost(op), body: Buffer.from('null') },
    { ...jsonPost(op), body: Buffer.from('"query"') },
    { ...jsonPost(op), body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json]) },
    { ...jsonPost(op), body: Buffer.concat([json.subarray(0, 10), Buffer.from([0xff, 0xfe, 0xc3]), json.subarray(10)]) },
    { ...jsonPost(op), body: Buffer.from(JSON.stringify({ ...op, variables: JSON.stringify(op.variables) })) },
    { ...jsonPost(op), body: Buffer.from(JSON.stringify({ ...op, extensions: { persistedQuery: { version: 1, sha256Hash: 'ab'.repeat(32) } } })) },
    { ...jsonPost(op), body: Buffer.from(JSON.stringify({ ...op, query: 42 })) },
    { ...jsonPost(op), body: Buffer.alloc(0) },
    { ...getRequest(op), path: `${getRequest(op).path}&query=${encodeURIComponent('{ __typename }')}` },
    { ...getRequest(op), path: `${getRequest(op).path}&variables=%7B%7D&operationName=X` },
    { ...getRequest(op), path: '/graphql?query=%zz%7B' },
    { ...getRequest(op), path: `/graphql?query=${'%7B'.repeat(3000)}` },
    { ...getRequest(op), path: getRequest(op).path.replace('/graphql', '/graphql/') },
    { ...getRequest(op), path: getRequest(op).path.replace('/graphql', '/GRAPHQL') },
    { ...getRequest(op), method: 'HEAD' },
    { ...jsonPost(op), method: 'PUT' },
    { ...jsonPost(op), method: 'PATCH' },
    { ...jsonPost(op), method: 'DELETE' },
    { ...getRequest(op), method: 'OPTIONS', headers: [['origin', 'https://a.example'], ['access-control-request-method', 'POST']] },
    { ...jsonPost(op), method: 'PROPFIND' },
    { ...getRequest(op), method: 'TRACE' },
  );
  return fc.tuple(encoded, oddHeader).map(([req, extra]) => ({ ...req, headers: [...req.headers, ...extra] }));
}
