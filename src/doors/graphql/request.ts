/**
 * What the GraphQL road reads of a request's headers, without Fetch API objects: the encoder and
 * media type `Accept` asks for, and a stand-in for the `Request` the execution hooks read.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HeaderReader } from '../../admission/api-key.js';
import { refusal, type Refusal } from '../../admission/refusal.js';

/** What writes a result: yoga's JSON processor, its event stream, or multipart parts. */
export type Encoder = 'regular' | 'sse' | 'multipart';

/** The result processors yoga tries, in its order, and the media types each answers with. */
const PROCESSORS: ReadonlyArray<{ encoder: Encoder; mediaTypes: readonly string[] }> = [
  { encoder: 'sse', mediaTypes: ['text/event-stream'] },
  { encoder: 'multipart', mediaTypes: ['multipart/mixed'] },
  { encoder: 'regular', mediaTypes: ['application/graphql-response+json', 'application/json'] },
];
const answerTypes = new Map<string, string | undefined>();
/** Distinct `Accept` headers remembered; clients send a handful. */
const MAX_ACCEPT_HEADERS = 256;

/**
 * The encoder and media type yoga's result processors pick for `accept` (the last match wins):
 * for a result in parts (`iterable`) only those that write parts; for a subscription none in
 * multipart. Undefined: none, a 406.
 */
export function encodingFor(accept: string | undefined, iterable: boolean, subscription: boolean): { encoder: Encoder; mediaType: string } | undefined {
  const asked = (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',').flatMap((one) => {
    const [type, ...params] = one.split(';');
    const charset = params.find((param) => param.includes('charset=')) ?? 'charset=utf-8';
    return type === undefined || charset !== 'charset=utf-8' ? [] : [type];
  }).reverse();
  let chosen: { encoder: Encoder; mediaType: string } | undefined;
  for (const { encoder, mediaTypes } of PROCESSORS) {
    if ((iterable && encoder === 'regular') || (subscription && encoder === 'multipart')) continue;
    for (const type of asked) {
      for (const mediaType of mediaTypes) if (matches(mediaType, type)) chosen = { encoder, mediaType };
    }
  }
  return chosen;
}

/** The media type yoga's negotiation picks for `accept` when it is its JSON processor's; memoized per header. */
export function answerMediaType(accept: string | undefined): string | undefined {
  const header = accept ?? '';
  if (answerTypes.has(header)) return answerTypes.get(header);
  const chosen = encodingFor(header, false, false);
  const answer = chosen?.encoder === 'regular' ? chosen.mediaType : undefined;
  if (answerTypes.size < MAX_ACCEPT_HEADERS) answerTypes.set(header, answer);
  return answer;
}

/**
 * The refusal of an `Accept` no encoder meets, naming the media types the answer could be sent in;
 * a browser asking for a page while GraphiQL is off is told that it is off.
 */
export function notAcceptable(req: IncomingMessage, subscription: boolean, graphiql: boolean): Refusal {
  const offered = PROCESSORS.filter(({ encoder }) => !subscription || encoder === 'sse').flatMap(({ mediaTypes }) => mediaTypes).join(', ');
  const page = !graphiql && req.method === 'GET' && (req.headers.accept ?? '').includes('text/html');
  const message = page
    ? `No explorer page is served here (it is off): send GraphQL asking for ${offered}`
    : `This answer can be sent as ${offered} only: send one of them in Accept`;
  return refusal('NOT_ACCEPTABLE', message, { accept: offered });
}

function matches(offered: string, asked: string): boolean {
  const [offeredType, offeredSubtype] = offered.split('/');
  const [askedType, askedSubtype] = asked.split('/');
  return (askedType === '*' || askedType === offeredType) && (askedSubtype === '*' || askedSubtype === offeredSubtype);
}

/** The part of a Fetch `Request` the execution hooks read, over Node's request. */
export interface HookRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: HeaderReader;
  /** Aborts when the client goes before its answer is sent; made on first use. */
  readonly signal: AbortSignal;
}

/** The stand-in for `req`, answered on `res`. */
export function hookRequest(req: IncomingMessage, res: ServerResponse, url: string): HookRequest {
  return new NodeRequest(req, res, url);
}

// Private: a class, its methods shared, not made again for every request.
class NodeRequest implements HookRequest, HeaderReader {
  #signal: AbortSignal | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    readonly url: string,
  ) {}

  get method(): string {
    return this.req.method ?? 'POST';
  }

  get headers(): HeaderReader {
    return this;
  }

  get(name: string): string | null {
    const value = this.req.headers[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  }

  get signal(): AbortSignal {
    if (this.#signal === undefined) {
      const controller = new AbortController();
      const res = this.res;
      res.once('close', () => {
        if (!res.writableFinished) controller.abort(new Error('the client disconnected'));
      });
      this.#signal = controller.signal;
    }
    return this.#signal;
  }
}
