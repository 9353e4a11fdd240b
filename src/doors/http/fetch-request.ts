/**
 * The Fetch `Request` of a request whose body the door has read, for what reads Fetch objects
 * (the pages): its body is the bytes read, never the Node stream again, and
 * its signal aborts when the client goes before its answer is sent.
 */
import type { ServerResponse } from 'node:http';
import { urlOf } from '../../admission/route.js';
import type { BodyRequest } from './body.js';

/** `req` as a Fetch `Request`, or undefined for a target no URL reads. */
export function fetchRequestOf(req: BodyRequest, res: ServerResponse): Request | undefined {
  const url = urlOf(req.url ?? '');
  if (url === undefined) return undefined;
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const method = req.method ?? 'GET';
  const body = method === 'GET' || method === 'HEAD' || req.body === undefined ? undefined : new Uint8Array(req.body);
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new Error('the client disconnected'));
  });
  return new Request(url, { method, headers, body, signal: controller.signal });
}
