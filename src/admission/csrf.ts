/**
 * CSRF prevention (`CSRF_PREVENTION`), @graphql-yoga/plugin-csrf-prevention's rule: a request a
 * browser may send cross-site without a preflight must carry one of `CSRF_HEADERS`. HTTP only.
 */
import type { HeaderReader } from './api-key.js';
import { refusal, type Refusal } from './refusal.js';

/** yoga's own header and the two Apollo clients already send. */
export const CSRF_HEADERS = ['x-graphql-yoga-csrf', 'apollo-require-preflight', 'x-apollo-operation-name'];

const SIMPLE_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'];

/** The refusal of a simple request without a CSRF header, or undefined. */
export function csrfRefusal(headers: HeaderReader): Refusal | undefined {
  const type = headers.get('content-type')?.toLowerCase();
  if (type && !SIMPLE_TYPES.some((simple) => type.startsWith(simple))) return undefined;
  if (CSRF_HEADERS.some((name) => headers.get(name) !== null)) return undefined;
  return refusal('CSRF_HEADER_REQUIRED', `Required CSRF header(s) not present: send one of ${CSRF_HEADERS.join(', ')}`);
}
