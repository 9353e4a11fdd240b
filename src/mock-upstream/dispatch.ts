/**
 * The road of one request through the mock: count it, pick its fault, wait the latency, route
 * it (missing paths, token endpoint, method, token checks, operation), then write the answer.
 * The fault is picked on arrival so `times` follows arrival order even if latency changes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  errorEnvelope, textAnswer, TOKEN_TIMEOUT_MSG, trickleAnswer, writeAnswer, type Answer,
} from './reply.js';
import type { Behaviour } from './behaviour.js';
import { TOKEN_PATH, type CallCounters } from './counters.js';
import type { Catalog } from './data.js';
import { faultAnswer, SLOW_BODY_INTERVAL_MS, type FaultTable } from './faults.js';
import { isOperationPath, runOperation } from './handlers.js';
import { answerTokenRequest, type TokenStore } from './token.js';

/** The live state every request reads; owned by `createMockUpstream`. */
export interface MockState {
  catalog: Catalog;
  behaviour: Behaviour;
  clientId: string;
  clientSecret: string;
  /** Delay before answering, in ms. */
  latencyMs: number;
  now: () => number;
  tokens: TokenStore;
  faults: FaultTable;
  counters: CallCounters;
  /** Pending delays and trickles, cleared by `close()` so nothing outlives the server. */
  timers: Set<NodeJS.Timeout>;
}

/** Handle one request; never rejects. */
export async function handleRequest(state: MockState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://mock-upstream');
  const { authorization, traceparent } = req.headers;
  const finish = state.counters.start({
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    ...(authorization === undefined ? {} : { authorization }),
    ...(typeof traceparent === 'string' ? { traceparent } : {}),
    at: state.now(),
  });
  res.on('close', finish);
  const fault = state.faults.take(url.pathname);
  try {
    await delay(state, state.latencyMs);
    if (fault === 'hang') return; // The socket stays open: the client's timeout or close() ends it.
    if (fault === 'reset') {
      req.socket.destroy();
      return;
    }
    const replacement = fault === undefined ? undefined : faultAnswer(fault, state.behaviour.errorStatus, state.now());
    if (fault === 'token-timeout') state.counters.tokenTimeoutSent();
    const answer = replacement ?? await route(state, req, url);
    if (fault === 'slow-body') trickle(state, res, answer);
    else writeAnswer(res, answer);
  } catch (error) {
    // A bug in the mock must show as a plain 500, not as a hung test.
    if (!res.headersSent) writeAnswer(res, textAnswer(500, `mock upstream error: ${String(error)}`));
    else res.destroy();
  }
}

// Private: the normal answer for a request.
async function route(state: MockState, req: IncomingMessage, url: URL): Promise<Answer> {
  const path = url.pathname;
  if (state.behaviour.missingPaths.includes(path)) return notFoundPath(req);
  if (path === TOKEN_PATH) {
    if (req.method !== 'POST') return methodNotAllowed(req, 'POST');
    const body = await readBody(req);
    return answerTokenRequest(
      { contentType: req.headers['content-type'], authorization: req.headers.authorization, body },
      { clientId: state.clientId, clientSecret: state.clientSecret, behaviour: state.behaviour, store: state.tokens, nowMs: state.now() },
    );
  }
  if (!isOperationPath(path)) return notFoundPath(req);
  if (req.method !== 'GET') return methodNotAllowed(req, 'GET');
  req.resume();
  return authenticate(state, url, req.headers.authorization)
    ?? runOperation(path, { query: url.searchParams, catalog: state.catalog, behaviour: state.behaviour, nowMs: state.now() });
}

// Private: the refusal for a request without a usable token, or undefined when it may pass.
function authenticate(state: MockState, url: URL, authorization: string | undefined): Answer | undefined {
  const nowMs = state.now();
  const { errorStatus } = state.behaviour;
  if (url.searchParams.has('access_token') || url.searchParams.has('token')) {
    return errorEnvelope(errorStatus, 400, 'token must be sent in the Authorization header', nowMs);
  }
  const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  const tokenState = token === undefined ? 'unknown' : state.tokens.check(token);
  if (tokenState === 'unknown') return errorEnvelope(401, 401, 'invalid token', nowMs);
  if (tokenState === 'expired') {
    state.counters.tokenTimeoutSent();
    return errorEnvelope(errorStatus, 500, TOKEN_TIMEOUT_MSG, nowMs);
  }
  return undefined;
}

// Private: HTTP 404 in text, as a framework answers an unknown route.
function notFoundPath(req: IncomingMessage): Answer {
  req.resume();
  return textAnswer(404, 'Not Found');
}

// Private: HTTP 405 naming the one allowed method.
function methodNotAllowed(req: IncomingMessage, allowed: string): Answer {
  req.resume();
  return textAnswer(405, 'Method Not Allowed', { allow: allowed });
}

// Private: the request body as UTF-8 text.
function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

// Private: wait `ms`, with the timer registered so close() can cancel it.
function delay(state: MockState, ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      state.timers.delete(timer);
      resolve();
    }, ms);
    state.timers.add(timer);
  });
}

// Private: send `answer` slowly, with the trickle registered so close() can stop it.
function trickle(state: MockState, res: ServerResponse, answer: Answer): void {
  const timer = trickleAnswer(res, answer, SLOW_BODY_INTERVAL_MS);
  state.timers.add(timer);
  res.on('close', () => state.timers.delete(timer));
}
