/** Ends each execution's request scope and reports its notes (`extensions.stale`, `dataAge`). */
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
            // An answer in parts is one operation: the deadline holds until its last part.
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
