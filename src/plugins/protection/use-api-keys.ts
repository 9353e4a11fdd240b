/**
 * The API-key check (admission/api-key.ts) on yoga's HTTP path: a request without a valid
 * key gets its 401 before any other plugin reads it.
 */
import type { Plugin } from 'graphql-yoga';
import type { Admission } from '../../admission/admission.js';
import { isRefusal } from '../../admission/refusal.js';
import { requestIn } from '../../request/request.js';
import { refusalResponse } from '../../admission/refusal-writer.js';

export function useApiKeys(admission: Pick<Admission, 'key' | 'keys'>): Plugin {
  if (!admission.keys) return {};
  return {
    onRequest({ request, endResponse, fetchAPI, serverContext }) {
      const answer = admission.key(request.headers);
      const record = requestIn(serverContext);
      if (!isRefusal(answer)) {
        if (record !== undefined) record.client = answer.client;
        return;
      }
      if (record !== undefined) {
        record.rejectedAs = 'unauthenticated';
        record.errorCodes.add(answer.code);
      }
      endResponse(refusalResponse(fetchAPI, answer));
    },
  };
}
