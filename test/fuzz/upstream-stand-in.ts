/**
 * A raw `node:http` server that stands in for the upstream: it answers a scripted path with
 * exactly the bytes a test gives (status, content type, body, or a body cut off mid-way), and
 * passes every other request, the token endpoint's included, to the project's mock upstream.
 */
import type { ServerResponse } from 'node:http';
import type { MockUpstream } from '../../src/mock-upstream/index.js';
import { startRawServer, type RawRequest } from '../helpers/raw-server.js';

/** One scripted upstream answer. */
export interface ScriptedAnswer {
  status: number;
  /** `Content-Type`; none when undefined. */
  contentType: string | undefined;
  body: string;
  /** Send half the body with a `Content-Length` of the whole, then drop the connection. */
  cut: boolean;
}

export interface UpstreamStandIn {
  url: string;
  tokenUrl: string;
  /** Answer `path` with `answer` from now on; `null`: pass it to the mock again. */
  script(path: string, answer: ScriptedAnswer | null): void;
  /** Requests answered from a script so far. */
  scriptedCalls(): number;
  close(): Promise<void>;
}

export async function startUpstreamStandIn(mock: MockUpstream): Promise<UpstreamStandIn> {
  const scripts = new Map<string, ScriptedAnswer>();
  let scripted = 0;
  const server = await startRawServer((req, res) => {
    const answer = scripts.get(new URL(req.url, 'http://x').pathname);
    if (answer === undefined) return void passOn(mock, req, res);
    scripted += 1;
    answerWith(answer, res);
  });
  // The mock's tokens are checked against its own list, not where they came from: passing the
  // token request on keeps the token endpoint working through the stand-in.
  return {
    url: server.url,
    tokenUrl: `${server.url}/oauth/token`,
    script: (path, answer) => void (answer === null ? scripts.delete(path) : scripts.set(path, answer)),
    scriptedCalls: () => scripted,
    close: () => server.close(),
  };
}

// Private: the scripted bytes, exactly.
function answerWith(answer: ScriptedAnswer, res: ServerResponse): void {
  const bytes = Buffer.from(answer.body, 'utf8');
  const headers: Record<string, string | number> = { 'content-length': bytes.length };
  if (answer.contentType !== undefined) headers['content-type'] = answer.contentType;
  res.writeHead(answer.status, headers);
  if (!answer.cut) return void res.end(bytes);
  res.write(bytes.subarray(0, bytes.length >> 1), () => res.destroy());
}

// Private: the mock's own answer to the same request.
function passOn(mock: MockUpstream, req: RawRequest, res: ServerResponse): void {
  const headers: Record<string, string> = {};
  for (const name of ['authorization', 'content-type', 'accept']) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  fetch(mock.url + req.url, { method: req.method, headers, body: req.method === 'GET' ? undefined : req.body })
    .then(async (answer) => {
      const body = Buffer.from(await answer.arrayBuffer());
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json', 'content-length': body.length });
      res.end(body);
    })
    .catch(() => res.destroy());
}
