/**
 * A request's parameters as the lean path reads them, in the order yoga's parameter steps run:
 * the operation name noted, the size limits, then the allow-list's document or an automatic
 * persisted query's. A refusal is one of theirs; undefined is what only yoga reads.
 */
import type { Admission } from '../../admission/admission.js';
import { hashMatches, persistedQueryHash, type PersistedQueryStore } from '../../admission/automatic-persisted.js';
import { isRefusal, refusal, type Refusal } from '../../admission/refusal.js';
import { nameRequested, type GatewayRequest } from '../../request/request.js';
import type { LeanBody, LeanParams } from './request.js';

export interface ParamsReading {
  admission: Pick<Admission, 'parameters' | 'persisted'>;
  apq: Pick<PersistedQueryStore, 'get'>;
  /** Allow-list mode (`PERSISTED_OPERATIONS_FILE`). */
  allowList: boolean;
}

/** One operation's parameters, within the limits, its document the listed one in allow-list mode, or their refusal. */
export type ReadParams = (params: LeanBody | undefined, record: GatewayRequest) => LeanParams | Refusal | undefined;

export function createParamsReader({ admission, apq, allowList }: ParamsReading): ReadParams {
  return (params, record) => {
    if (params === undefined) return undefined;
    const { query, variables, operationName, extensions } = params;
    nameRequested(record, operationName);
    const limited = admission.parameters(query, variables);
    if (limited !== undefined) return limited;
    if (allowList) {
      const listed = admission.persisted(params);
      return listed === undefined || isRefusal(listed) ? listed : { query: listed.query, variables, operationName };
    }
    if (extensions === undefined || extensions === null) return typeof query === 'string' ? (params as unknown as LeanParams) : undefined;
    if (typeof extensions !== 'object' || Array.isArray(extensions)) return undefined;
    // Automatic persisted queries: a hash alone, or with its query (registered once valid); an extension yoga ignores is ignored.
    const hash = persistedQueryHash(extensions);
    if (hash === undefined) return 'persistedQuery' in extensions || typeof query !== 'string' ? undefined : { query, variables, operationName };
    if (query === undefined || query === null) {
      const registered = apq.get(hash);
      return registered === undefined ? refusal('PERSISTED_QUERY_NOT_FOUND') : { query: registered, variables, operationName };
    }
    if (typeof query !== 'string') return undefined;
    return hashMatches(hash, query) ? { query, variables, operationName, register: hash } : refusal('PERSISTED_QUERY_MISMATCH');
  };
}
