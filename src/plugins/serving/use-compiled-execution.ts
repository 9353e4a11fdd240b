/**
 * yoga's executor swapped for compiled execution's (graph/execution/compile.ts): graphql-jit's
 * compiled query, or graphql-js for a plain query. Last of the execution hooks: it only swaps
 * the executor, for what every check before it let through.
 */
import type { Plugin } from 'graphql-yoga';
import type { Execute, ExecutorFor } from '../../graph/execution/compile.js';

export function useCompiledExecution(executorFor: ExecutorFor): Plugin {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const chosen = executorFor(args, executeFn as Execute);
      if (chosen !== undefined) setExecuteFn(chosen as typeof executeFn);
    },
  };
}
