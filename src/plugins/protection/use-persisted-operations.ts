/**
 * Allow-list mode on yoga's path, by the admission's rule (admission/persisted.ts): a listed
 * request runs its listed document, still parsed and validated like any other.
 */
import type { Plugin } from 'graphql-yoga';
import type { Admission } from '../../admission/admission.js';
import { urlIds } from '../../admission/persisted.js';
import { isRefusal, refusalError } from '../../admission/refusal.js';

export function useAllowList(admission: Pick<Admission, 'persisted'>): Plugin {
  return {
    onParams({ params, request, setParams }) {
      const ids = request.method === 'GET' ? urlIds(request.url) : undefined;
      if (isRefusal(ids)) throw refusalError(ids);
      const listed = admission.persisted(ids === undefined ? params : { ...ids, ...params });
      if (listed === undefined) return;
      if (isRefusal(listed)) throw refusalError(listed);
      setParams({ query: listed.query, operationName: params.operationName, variables: params.variables, extensions: params.extensions });
    },
  };
}
