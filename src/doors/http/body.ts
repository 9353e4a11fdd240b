/**
 * A request's body, read before the handler runs: admitted from its headers first (a refused one
 * goes on unread), its `Content-Encoding` checked (415), then decoded as it streams in within
 * `maxBytes`, the decoding ratio (a bomb is refused early) and the shared budget (503).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { REQUEST_ID_HEADER, requestIdFrom } from '../../request/current.js';
import { refusal, type Refusal } from '../../admission/refusal.js';
import type { DecodingBudget } from './decoding-budget.js';
import { CODINGS, contentEncoding, ENCODINGS, type Coding } from './body-codings.js';
import { writeRefusal } from '../../admission/refusal-writer.js';

/** A request whose body is read here: `request.body` once read, undefined when it was refused unread. */
export type BodyRequest = IncomingMessage & { body?: Buffer };

/** Called with the object `arrive` made for the request; one `admit` refused has no `body`. */
export type BodyHandler<A> = (request: BodyRequest, response: ServerResponse, arrived: A) => void;

/** Makes the object a request carries through its door, before anything is read. */
export type Arrive<A> = (request: IncomingMessage) => A;

/** Decides from the headers (noting on `arrived` what it found) whether a request's body is read. */
export type Admit<A> = (request: IncomingMessage, arrived: A) => boolean | Promise<boolean>;

export interface BodyLimits {
  /** The largest body, in bytes as sent and as decoded. */
  maxBytes: number;
  /** What every body being decoded may hold together. */
  budget: DecodingBudget;
}

/** How bodies are read: their bounds, their admission, and who hears of a failure (a bug). */
export interface BodyReading<A> {
  limits: BodyLimits;
  arrive: Arrive<A>;
  /** Without it, every body is read. */
  admit: Admit<A> | undefined;
  onError: (error: unknown) => void;
}

/** How much more a body may decode to than it was sent as, once past `DECODED_FLOOR`. */
export const DECODED_RATIO = 100;
/** The bytes any compressed body may decode to, whatever its ratio: a small JSON body compresses far better than 100×. */
export const DECODED_FLOOR = 65_536;
/** Seconds a client refused for the decoding budget is told to wait. */
const BUSY_RETRY_S = 1;

type Failure = 'too-large' | 'inflated' | 'busy' | 'corrupt';

/** Admits `request`, reads its body within its bounds, and hands it to `handler`; refuses what fails. */
export function withBoundedBody<A>(request: BodyRequest, response: ServerResponse, reading: BodyReading<A>, handler: BodyHandler<A>): void {
  const { admit, onError } = reading;
  let arrived: A;
  let admitted: boolean | Promise<boolean>;
  try {
    arrived = reading.arrive(request);
    if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') {
      continueIfAsked(request, response);
      return handler(request, response, arrived);
    }
    admitted = admit === undefined ? true : admit(request, arrived);
  } catch (error) {
    return answerFailure(request, response, error, onError);
  }
  if (!(admitted instanceof Promise)) return admittedOrNot(request, response, reading.limits, admitted, arrived, handler);
  admitted.then(
    (verdict) => admittedOrNot(request, response, reading.limits, verdict, arrived, handler),
    (error: unknown) => answerFailure(request, response, error, onError),
  );
}

/** A failure (a bug) while a request was admitted or handled: 500, or a response begun cut; `onError` is told. */
export function answerFailure(request: IncomingMessage, response: ServerResponse, error: unknown, onError: (error: unknown) => void): void {
  if (response.headersSent) response.destroy();
  else refuse(request, response, { ...refusal('INTERNAL_SERVER_ERROR'), status: 500 });
  onError(error);
}

// Private: a request the admission refused goes to the handler at once, its body unread.
function admittedOrNot<A>(request: BodyRequest, response: ServerResponse, limits: BodyLimits, admitted: boolean, arrived: A, handler: BodyHandler<A>): void {
  if (admitted) return readAdmitted(request, response, limits, arrived, handler);
  response.shouldKeepAlive = false;
  handler(request, response, arrived);
}

function readAdmitted<A>(request: BodyRequest, response: ServerResponse, limits: BodyLimits, arrived: A, handler: BodyHandler<A>): void {
  const encoding = contentEncoding(request.headers['content-encoding']);
  const coding = encoding === undefined ? undefined : CODINGS[encoding];
  if (encoding !== undefined && coding === undefined) {
    return refuse(request, response, refusal('UNSUPPORTED_MEDIA_TYPE',
      `The request body's Content-Encoding must be one of: ${ENCODINGS}; or none`, { 'accept-encoding': ENCODINGS }));
  }
  if (Number(request.headers['content-length']) > limits.maxBytes) return refuseBody(request, response, 'too-large', limits);
  readBody(request, limits, coding, () => continueIfAsked(request, response), (body) => {
    if (body === undefined) return void response.destroy();
    if (!Buffer.isBuffer(body)) return refuseBody(request, response, body, limits, encoding);
    if (coding !== undefined) {
      // Plain from here on: what the handler reads of these would describe the compressed bytes.
      delete request.headers['content-encoding'];
      delete request.headers['content-length'];
    }
    request.body = body;
    handler(request, response, arrived);
  });
}

// Private: a client that sent `Expect: 100-continue` waits for this before it sends its body.
function continueIfAsked(request: IncomingMessage, response: ServerResponse): void {
  if (request.headers.expect?.toLowerCase() === '100-continue') response.writeContinue();
}

// Private: the body, through `coding`'s decoder when compressed, bounded as it comes; a failed
// request reads as undefined.
function readBody(
  request: IncomingMessage, { maxBytes, budget }: BodyLimits, coding: Coding | undefined, reading: () => void, done: (body: Buffer | Failure | undefined) => void,
): void {
  if (request.destroyed) return done(undefined);
  if (coding !== undefined && !budget.take(budget.decoderBytes, 0)) return done('busy');
  reading();
  const decoder = coding?.decoder();
  const source = decoder ?? request;
  const chunks: Buffer[] = [];
  let size = 0;
  let received = 0;
  let charged = decoder === undefined ? 0 : budget.decoderBytes;
  // The first bytes, kept from the decoder until they say what it will take.
  let prefix: Buffer | undefined = decoder === undefined ? undefined : Buffer.alloc(0);
  const settle = (outcome: Buffer | Failure | Error) => {
    request.off('data', onReceived).off('end', onRequestEnd).off('error', settle).off('close', onClose);
    source.off('data', onData).off('end', onEnd);
    budget.give(charged);
    charged = 0;
    if (decoder !== undefined) {
      request.unpipe(decoder);
      decoder.off('error', onCorrupt).on('error', () => {}).destroy();
    }
    if (!Buffer.isBuffer(outcome)) request.resume(); // discard the rest; the refusal closes the connection
    done(outcome instanceof Error ? undefined : outcome);
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) return settle('too-large');
    if (decoder !== undefined) {
      if (size > DECODED_FLOOR && size > DECODED_RATIO * received) return settle('inflated');
      if (!budget.take(chunk.length, charged)) return settle('busy');
      charged += chunk.length;
    }
    chunks.push(chunk);
  };
  const onEnd = () => settle(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
  // Once the decoder's state is counted, it gets the bytes kept and the rest of the body.
  const decide = (ended: boolean) => {
    const state = coding!.state(prefix!) ?? (ended ? { bytes: 0, declared: 0 } : undefined);
    if (state === undefined) return;
    const kept = prefix!;
    prefix = undefined;
    if (state.declared > maxBytes) return settle('too-large');
    const more = state.bytes - charged;
    if (more > 0 && !budget.take(more, charged)) return settle('busy');
    charged += Math.max(0, more);
    if (ended) return void decoder!.end(kept);
    if (kept.length > 0) decoder!.write(kept);
    request.pipe(decoder!);
  };
  const onReceived = (chunk: Buffer) => {
    received += chunk.length;
    if (received > maxBytes) return settle('too-large');
    if (prefix === undefined) return;
    prefix = Buffer.concat([prefix, chunk]);
    decide(false);
  };
  const onRequestEnd = () => prefix !== undefined && decide(true);
  // No bytes at all decode to an empty body, as if sent plain.
  const onCorrupt = () => settle(received === 0 ? Buffer.alloc(0) : 'corrupt');
  // A client gone before its whole body came (its error may have gone before these listeners came).
  const onClose = () => {
    if (!request.complete) settle(new Error('the client went before its body came'));
  };
  request.on('error', settle).on('close', onClose);
  source.on('data', onData).on('end', onEnd);
  if (decoder === undefined) return;
  decoder.on('error', onCorrupt);
  // Counted before the decoder gets them: these listeners come before the pipe's.
  request.on('data', onReceived).on('end', onRequestEnd);
  decide(false);
}

function refuseBody(request: IncomingMessage, response: ServerResponse, why: Failure, { maxBytes }: BodyLimits, encoding?: string): void {
  refuse(request, response, bodyRefusal(why, maxBytes, encoding));
}

function bodyRefusal(why: Failure, maxBytes: number, encoding: string | undefined): Refusal {
  switch (why) {
    case 'too-large':
      return refusal('PAYLOAD_TOO_LARGE', `The request body exceeds ${maxBytes} bytes`);
    case 'inflated':
      return refusal('PAYLOAD_TOO_LARGE',
        `The request body decodes to more than ${DECODED_RATIO} times its size as sent (and more than ${DECODED_FLOOR} bytes): send it less compressed, or plain`);
    case 'busy':
      return refusal('SERVER_BUSY', undefined, { 'retry-after': String(BUSY_RETRY_S) });
    case 'corrupt':
      return refusal('BAD_REQUEST', `The request body is not valid ${encoding} data`);
  }
}

// Private: a refusal before any handler saw the request, so its request id is set here.
function refuse(request: IncomingMessage, response: ServerResponse, refused: Refusal): void {
  writeRefusal(response, refused, { [REQUEST_ID_HEADER]: requestIdFrom(request.headers[REQUEST_ID_HEADER] as string | undefined) });
}
