/**
 * Allow-list mode (`PERSISTED_OPERATIONS_FILE`) on yoga's path: the rule is the admission's
 * (edge/admission/persisted.ts); a listed request runs its listed document, which is still
 * parsed and validated, limits included, like any other. The id parameters go with it, as
 * yoga's parameter check refuses names it does not know; a GET's come from its URL, which
 * yoga's GET parser reads only four names of (one given twice is refused).
 */
import type { Plugin } from 'graphql-yoga';
import type { Admission } from '../../edge/admission/admission.js';
import { urlIds } from '../../edge/admission/persisted.js';
import { isRefusal, refusalError } from '../../edge/admission/refusal.js';

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
