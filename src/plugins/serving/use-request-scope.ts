/**
 * Ends each execution's request scope (request/scope.ts) and reports stale data in the answer's
 * `extensions.stale`, and the catalog index's age in `extensions.dataAge`. Whether the answer may
 * be stored is not its business: the scope tells the request object itself (request/request.ts).
 */
import type { Plugin } from 'graphql-yoga';
import type { RequestScope } from '../../request/scope.js';
import { withNotes } from '../../graph/execution/run.js';

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
                const noted = withNotes(part, scope);
                if (noted !== part) setPart(noted);
              },
              onEnd: () => scope?.dispose(),
            };
          }
          scope?.dispose();
          const noted = withNotes(result, scope);
          if (noted !== result) setResult(noted);
          return undefined;
        },
      };
    },
  };
}
