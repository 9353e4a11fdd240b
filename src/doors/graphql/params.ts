/**
 * A request's parameters in the order yoga's parameter steps run: the operation name noted, the
 * size limits, the allow-list's document or an automatic persisted query's, then the check of
 * what they hold (read.ts). A refusal or an error is what the client is answered.
 */
import type { GraphQLError } from 'graphql';
import type { Admission } from '../../admission/admission.js';
import { hashMatches, persistedQueryHash, type PersistedQueryStore } from '../../admission/automatic-persisted.js';
import { isRefusal, refusal, type Refusal } from '../../admission/refusal.js';
import { nameRequested, type GatewayRequest } from '../../request/request.js';
import { checkedParams, type SentParams, type GraphQLParams, type ParamNames } from './read.js';

export interface ParamsReading {
  admission: Pick<Admission, 'parameters' | 'persisted'>;
  apq: Pick<PersistedQueryStore, 'get'>;
  /** Allow-list mode (`PERSISTED_OPERATIONS_FILE`). */
  allowList: boolean;
  /** The names a request may give. */
  names: ParamNames;
}

/** One operation's parameters, within the limits, its document the listed one in allow-list mode, or why not. */
export type ReadParams = (params: SentParams, record: GatewayRequest) => GraphQLParams | Refusal | GraphQLError;

export function createParamsReader({ admission, apq, allowList, names }: ParamsReading): ReadParams {
  return (params, record) => {
    const { query, variables, operationName, extensions } = params;
    nameRequested(record, operationName);
    const limited = admission.parameters(query, variables);
    if (limited !== undefined) return limited;
    if (allowList) {
      const listed = admission.persisted(params);
      if (listed === undefined) return checkedParams(params, names);
      return isRefusal(listed) ? listed : checkedParams({ ...params, query: listed.query }, names);
    }
    // Automatic persisted queries: a hash alone, or with its query (registered once valid); an extension yoga ignores is ignored.
    const hash = persistedQueryHash(extensions);
    if (hash === undefined) return checkedParams(params, names);
    if (query == null) {
      const registered = apq.get(hash);
      return registered === undefined ? refusal('PERSISTED_QUERY_NOT_FOUND') : checkedParams({ ...params, query: registered }, names);
    }
    if (typeof query === 'string' && !hashMatches(hash, query)) return refusal('PERSISTED_QUERY_MISMATCH');
    const checked = checkedParams(params, names);
    return checked instanceof Error ? checked : { ...checked, register: hash };
  };
}
