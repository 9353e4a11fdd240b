/**
 * The upstream budget: an operation whose estimated upstream calls (estimate.ts) exceed
 * `MAX_UPSTREAM_CALLS_PER_OPERATION` is refused before it runs, with a message naming the
 * estimate; while it runs, the request scope counts the calls it starts and refuses those
 * beyond the budget (the hard stop, for what the estimate could not foresee).
 */
import { getOperationAST, GraphQLError, Kind, type FragmentDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { RequestScope } from '../../serving/use-request-scope.js';
import { estimateUpstreamCalls, type Planner } from './estimate.js';

export const UPSTREAM_BUDGET_EXCEEDED = 'UPSTREAM_BUDGET_EXCEEDED';

export function useUpstreamBudget(budget: number, planner: Planner): Plugin<{ scope?: RequestScope }> {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const operation = getOperationAST(args.document, args.operationName);
      if (!operation) return;
      const fragments: Record<string, FragmentDefinitionNode> = {};
      for (const definition of args.document.definitions) {
        if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
      }
      const estimate = estimateUpstreamCalls(operation, fragments, args.variableValues ?? {}, planner);
      if (estimate <= budget) return;
      args.contextValue.scope?.dispose();
      setResultAndStopExecution({
        errors: [
          new GraphQLError(
            `This operation could cost about ${estimate} upstream calls, more than one operation may; ask for fewer or smaller pages, or split it`,
            { extensions: { code: UPSTREAM_BUDGET_EXCEEDED, estimate } },
          ),
        ],
      });
    },
  };
}

/** The hard stop: counts the upstream calls a request starts; refuses those beyond `budget`. */
export function createUpstreamCharge(budget: number): () => void {
  let calls = 0;
  return () => {
    calls += 1;
    if (calls > budget) {
      throw new GraphQLError(`This operation needed more than ${budget} upstream calls and was stopped`, {
        extensions: { code: UPSTREAM_BUDGET_EXCEEDED },
      });
    }
  };
}
