/**
 * The admission before a body is read: the API key, then the rate limit, from the headers alone,
 * so a client without a key or over its limit makes the gateway read and decode nothing. The
 * doors then refuse it from the same checks (the rate-limit verdict taken here is kept for the
 * request). Open and unlimited paths and the admin-keyed purge are excepted; a path this cannot
 * read gets no exception, which at worst leaves unread a body a door would have read.
 */
import type { IncomingMessage } from 'node:http';
import type { Admission } from './admission.js';
import { OPEN_PATHS, ROUTES, UNLIMITED_PATHS } from './routes.js';
import { createKeyCheck, nodeHeaders } from './api-key.js';
import { isRefusal } from './refusal.js';
import { pathOf } from './route.js';
import type { GatewayRequest } from '../request/request.js';

export interface BodyAdmissionOptions {
  /** `ADMIN_API_KEYS`: none turns the purge endpoint off. */
  adminKeys: readonly string[];
}

/** Whether a request's body may be read, its client and verdict noted on `request`; a promise while the fleet's bucket decides. */
export type BodyAdmission = (req: IncomingMessage, request: GatewayRequest) => boolean | Promise<boolean>;

export function createBodyAdmission(admission: Pick<Admission, 'key' | 'rate'>, { adminKeys }: BodyAdmissionOptions): BodyAdmission {
  const admin = adminKeys.length === 0 ? undefined : createKeyCheck(adminKeys);
  return (req, request) => {
    const path = pathOf(req.url);
    const headers = nodeHeaders(req);
    if (path === ROUTES.purge) {
      const checked = admin?.(headers);
      return checked !== undefined && !isRefusal(checked);
    }
    const keyed = admission.key(headers);
    if (isRefusal(keyed)) {
      request.keyRefused = keyed;
      return path !== undefined && OPEN_PATHS.has(path);
    }
    request.client = keyed.client;
    request.keyChecked = true;
    if (!admission.rate.on || (path !== undefined && UNLIMITED_PATHS.has(path))) return true;
    const verdict = admission.rate.arrive(request, req);
    if (!(verdict instanceof Promise)) return verdict.allowed;
    return verdict.then((taken) => taken.allowed);
  };
}
