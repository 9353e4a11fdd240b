/**
 * The parameter limits (admission/parameters.ts) on the parameters yoga parsed, before
 * anything else reads them: a refusal (413) costs no parse and no upstream call.
 */
import type { Plugin } from 'graphql-yoga';
import type { Admission } from '../../admission/admission.js';
import { refusalError } from '../../admission/refusal.js';

export function useParameterLimits(admission: Pick<Admission, 'parameters'>): Plugin {
  return {
    onParams({ params }) {
      const { query, variables } = params as { query?: unknown; variables?: unknown };
      const refused = admission.parameters(query, variables);
      if (refused !== undefined) throw refusalError(refused);
    },
  };
}
