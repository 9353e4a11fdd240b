/**
 * The road of a request to any path but GraphQL's, declared once: its steps in the order they
 * run, each answering or passing the request on. Admission comes between the open pages and
 * the others; every answer leaves through `send`, which adds what every answer carries.
 */
import type { ServerResponse } from 'node:http';
import type { Admission } from '../admission/admission.js';
import { isRefusal, refusal, type Refusal } from '../admission/refusal.js';
import { refusalResponse } from '../admission/refusal-writer.js';
import { pathOf, pathRefusal } from '../admission/route.js';
import { nodeHeaders } from '../admission/api-key.js';
import { OPEN_PATHS, ROUTES, UNLIMITED_PATHS } from '../admission/routes.js';
import { answerFailure, type BodyRequest } from '../doors/http/body.js';
import { fetchRequestOf } from '../doors/http/fetch-request.js';
import type { Cors } from '../encoding/cors.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import { describeAnswer } from '../observability/request-span.js';
import { REQUEST_ID_HEADER } from '../request/current.js';
import type { EndRequest } from '../request/log.js';
import type { GatewayRequest } from '../request/request.js';
import { isGraphiQLPageRequest, isGraphiQLRequest } from './explorer/graphiql.js';
import { FETCH, type Page, type PageRequest } from './page.js';

export interface PagesParts {
  admission: Pick<Admission, 'key' | 'keys' | 'rate'>;
  cors: Cors;
  metrics: Pick<GatewayMetrics, 'rejectedRequest'>;
  end: EndRequest;
  /** Whether GraphiQL is served (its page and assets need no API key). */
  graphiql: boolean;
  onError: (error: unknown) => void;
  pages: { health: Page; purge: Page; demo: Page; metrics: Page; explorer: Page; schema: Page; root: Page };
}

/** Whether a request is a page's: any path but GraphQL's, a preflight, or the explorer's page (GraphiQL on). */
export function isPage(req: BodyRequest, { graphiql }: { graphiql: boolean }): boolean {
  if (pathOf(req.url) !== ROUTES.graphql) return true;
  if (req.method === 'OPTIONS') return true;
  return graphiql && isGraphiQLPageRequest({ method: req.method ?? 'GET', headers: nodeHeaders(req) }, { pathname: ROUTES.graphql });
}

/** Serves a request to a page on `res`. */
export type ServePage = (req: BodyRequest, res: ServerResponse, record: GatewayRequest) => void;

interface Asked extends PageRequest {
  req: BodyRequest;
}

export function createPages({ admission, cors, metrics, end, graphiql, onError, pages }: PagesParts): ServePage {
  const steps: Array<(asked: Asked) => Response | undefined | Promise<Response | undefined>> = [
    // A preflight is answered before keys and limits (GraphQL's with CORS off too, without CORS headers); a path served by nothing is the registry's 404.
    ({ request, url }) => (request.method === 'OPTIONS' && (cors.on || url.pathname === ROUTES.graphql) ? new Response(null, { status: 204, headers: { 'content-length': '0' } }) : undefined),
    ({ request, url }) => refused(pathRefusal(request.url, url.pathname, ROUTES.graphql)),
    // Open: the probes, the purge (its own admin key), the example page.
    pages.root, pages.health, pages.purge, pages.demo,
    // The API key (GraphiQL needs none), then the metrics, which are never rate limited, then the rate limit.
    ({ request, url, record }) => {
      if (!admission.keys || OPEN_PATHS.has(url.pathname)) return undefined;
      const answer = admission.key(request.headers);
      if (!isRefusal(answer)) return void (record.client = answer.client);
      if (graphiql && isGraphiQLRequest(request, url)) return undefined;
      record.rejectedAs = 'unauthenticated';
      return refused(answer, record);
    },
    pages.metrics,
    ({ url, req, record }) => {
      if (!admission.rate.on || UNLIMITED_PATHS.has(url.pathname)) return undefined;
      const limited = (taken: Parameters<typeof admission.rate.refusal>[0]) => {
        const answer = admission.rate.refusal(taken);
        if (answer !== undefined) record.rejectedAs = 'rate_limited';
        return refused(answer, record);
      };
      const verdict = admission.rate.arrive(record, req);
      return verdict instanceof Promise ? verdict.then(limited) : limited(verdict);
    },
    pages.explorer, pages.schema,
    // A path served, but not this way: GraphiQL off, introspection off, or another method.
    ({ request }) => refused(request.method === 'GET' ? refusal('NOT_FOUND') : refusal('METHOD_NOT_ALLOWED', undefined, { allow: 'GET, HEAD' })),
  ];

  const serve = async (req: BodyRequest, res: ServerResponse, record: GatewayRequest) => {
    const asked = askedOf(req, res, record);
    if (asked === undefined) return send(res, record, new Headers(), refused(refusal('BAD_REQUEST', 'The request target is not a valid URL path'))!);
    record.graphql = asked.url.pathname === ROUTES.graphql && asked.request.method === 'OPTIONS';
    let response: Response | undefined;
    for (const step of steps) if ((response = await step(asked)) !== undefined) break;
    await send(res, record, asked.request.headers, response!);
  };

  // Private: the answer with what every one carries: its request id, `no-store` when refused, CORS; then its log line.
  async function send(res: ServerResponse, record: GatewayRequest, asked: Headers, response: Response): Promise<void> {
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => (headers[name] = value));
    headers[REQUEST_ID_HEADER] = record.id;
    if (response.status >= 400 && headers['cache-control'] === undefined) headers['cache-control'] = 'no-store';
    if (cors.on) Object.assign(headers, cors.headersFor(asked, { vary: headers.vary ?? null, cacheControl: headers['cache-control'] ?? null }));
    const body = response.body === null ? undefined : Buffer.from(await response.arrayBuffer());
    if (body !== undefined) headers['content-length'] = String(body.byteLength);
    if (!res.destroyed) {
      for (const name in headers) res.setHeader(name, headers[name]!);
      res.writeHead(response.status).end(body);
    }
    if (record.span !== undefined) describeAnswer(record, response.status);
    // A GraphQL request's end counts its refusal with its other metrics (request/log.ts).
    if (record.graphql) end(record, response.status);
    else if (record.rejectedAs !== undefined) metrics.rejectedRequest(record.rejectedAs);
    record.release();
  }

  return (req, res, record) => void serve(req, res, record).catch((error: unknown) => answerFailure(req, res, error, onError));
}

// Private: the request as a page reads it; undefined for a target no URL reads.
function askedOf(req: BodyRequest, res: ServerResponse, record: GatewayRequest): Asked | undefined {
  const request = fetchRequestOf(req, res);
  return request === undefined ? undefined : { request, url: new URL(request.url), record, req };
}

// Private: a refusal's answer, its code noted; undefined passes the request on.
function refused(answer: Refusal | undefined, record?: GatewayRequest): Response | undefined {
  if (answer === undefined) return undefined;
  record?.errorCodes.add(answer.code);
  return refusalResponse(FETCH, answer);
}
