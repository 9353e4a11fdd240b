/**
 * Ends each execution's request scope (request/scope.ts) and reports stale data in the answer's
 * `extensions.stale`, and the catalog index's age in `extensions.dataAge`. Whether the answer may
 * be stored is not its business: the scope tells the request object itself (request/request.ts).
 */
import type { Plugin } from 'graphql-yoga';
import type { RequestScope } from '../../request/scope.js';

/** Ends each execution's scope and reports stale data in the result's `extensions.stale`. */
export function useRequestScope(): Plugin<{ scope?: RequestScope }> {
  return {
    onExecute({ args }) {
      const { scope } = args.contextValue;
      return {
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in result) {
            // An answer in parts (@defer, @stream) is one operation: the deadline holds until its
            // last part, which carries the notes.
            return {
              onNext({ result: part, setResult: setPart }) {
                if (!('hasNext' in part) || part.hasNext !== false) return;
                const extensions = notesOf(scope);
                if (extensions !== undefined) setPart({ ...part, extensions: { ...part.extensions, ...extensions } });
              },
              onEnd: () => scope?.dispose(),
            };
          }
          scope?.dispose();
          const extensions = notesOf(scope);
          if (extensions !== undefined) setResult({ ...result, extensions: { ...result.extensions, ...extensions } });
          return undefined;
        },
      };
    },
  };
}

// Private: the answer's `stale` and `dataAge` notes, if it has any.
function notesOf(scope: RequestScope | undefined): Record<string, unknown> | undefined {
  const stale = scope?.stale ?? [];
  const dataAge = scope?.dataAge;
  if (stale.length === 0 && dataAge === undefined) return undefined;
  return { ...(stale.length > 0 && { stale }), ...(dataAge !== undefined && { dataAge }) };
}
