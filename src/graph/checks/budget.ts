/**
 * The upstream budget: an operation whose estimated upstream calls exceed the budget is refused
 * before it runs, naming the estimate (the scope's hard stop catches what it could not foresee).
 * The budget holds per HTTP request, so a batch's operations share it. It runs after the argument
 * checks, so a bad argument is named as such, not priced.
 */
import { coded } from '../../base/graph-errors.js';
import type { RequestScope } from '../../request/scope.js';
import type { GatewayRequest } from '../../request/request.js';
import { isRunning, runningOperation, type OperationCheck } from '../running-operation.js';
import { UPSTREAM_BUDGET_EXCEEDED } from '../budget/charges.js';
import { estimateUpstreamCalls, type Planner } from '../budget/estimate.js';


export function budgetCheck(budget: number, planner: Planner): OperationCheck<{ scope?: RequestScope; gatewayRequest?: GatewayRequest }> {
  return (args, refuse) => {
    const running = runningOperation(args);
    if (!isRunning(running)) return;
    const estimate = estimateUpstreamCalls(running.operation, running.fragments, running.variables, planner, args.schema);
    // Summed on the request object, which a batch's operations share; without one, this operation alone.
    const request = args.contextValue.gatewayRequest ?? { estimatedCalls: 0 };
    const before = request.estimatedCalls;
    if (before + estimate <= budget) {
      request.estimatedCalls = before + estimate;
      return;
    }
    args.contextValue.scope?.dispose();
    const batch = before > 0 ? `, with the ${before} its batch's other operations could cost,` : ',';
    refuse({
      errors: [
        coded(
          UPSTREAM_BUDGET_EXCEEDED,
          `This operation could cost about ${estimate} upstream calls${batch} more than one request may; ask for fewer or smaller pages, or split it`,
          { extensions: { estimate } },
        ),
      ],
    });
  };
}
