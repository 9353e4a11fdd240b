/**
 * The API-key check (admission/api-key.ts) on yoga's HTTP path: a request without a valid
 * key gets its 401 before any other plugin reads it, but the open paths and what `isOpen` says.
 * An open request with a valid key is still known by it, for its rate limit.
 */
import type { Plugin } from 'graphql-yoga';
import { OPEN_PATHS } from '../../admission/routes.js';
import type { Admission } from '../../admission/admission.js';
import { isRefusal } from '../../admission/refusal.js';
import { requestIn } from '../../request/request.js';
import { refusalResponse } from '../../admission/refusal-writer.js';

export interface ApiKeyOptions {
  /** Requests answered without a key (besides the open paths). Default: none. */
  isOpen?: (request: Request, url: URL) => boolean;
}

export function useApiKeys(admission: Pick<Admission, 'key' | 'keys'>, { isOpen = () => false }: ApiKeyOptions = {}): Plugin {
  if (!admission.keys) return {};
  return {
    onRequest({ request, url, endResponse, fetchAPI, serverContext }) {
      if (OPEN_PATHS.has(url.pathname)) return;
      const answer = admission.key(request.headers);
      const record = requestIn(serverContext);
      if (!isRefusal(answer)) {
        if (record !== undefined) record.client = answer.client;
        return;
      }
      if (isOpen(request, url)) return;
      if (record !== undefined) {
        record.rejectedAs = 'unauthenticated';
        record.errorCodes.add(answer.code);
      }
      endResponse(refusalResponse(fetchAPI, answer));
    },
  };
}
