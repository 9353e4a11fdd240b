/**
 * Allow-list mode (`PERSISTED_OPERATIONS_FILE`) on yoga's path: the rule is the admission's
 * (edge/admission/persisted.ts); a listed request runs its listed document, which is still
 * parsed and validated, limits included, like any other.
 */
import type { Plugin } from 'graphql-yoga';
import type { Admission } from '../../edge/admission/admission.js';
import { isRefusal, refusalError } from '../../edge/admission/refusal.js';

export function useAllowList(admission: Pick<Admission, 'persisted'>): Plugin {
  return {
    onParams({ params, setParams }) {
      const listed = admission.persisted(params);
      if (listed === undefined) return;
      if (isRefusal(listed)) throw refusalError(listed);
      setParams({ query: listed.query, operationName: params.operationName, variables: params.variables, extensions: params.extensions });
    },
  };
}
