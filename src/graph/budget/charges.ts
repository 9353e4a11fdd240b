/** The upstream budget's hard stop while an operation runs (graph/checks/budget.ts refuses before). */
import type { ErrorCode } from '../../base/errors.js';
import { coded } from '../../base/graph-errors.js';

export const UPSTREAM_BUDGET_EXCEEDED = 'UPSTREAM_BUDGET_EXCEEDED' satisfies ErrorCode;

/** Counts the upstream calls a request (a whole batch) starts; refuses those beyond `budget`. */
export function createUpstreamCharges(budget: number): (request: object) => () => void {
  // Kept on the request, not in a WeakMap, as graph/running-operation.ts does.
  const CHARGE = Symbol('upstream charge');
  return (request) => {
    const carrier = request as { [CHARGE]?: () => void };
    return (carrier[CHARGE] ??= createUpstreamCharge(budget));
  };
}

// Private: one request's count.
function createUpstreamCharge(budget: number): () => void {
  let calls = 0;
  return () => {
    calls += 1;
    if (calls > budget) {
      throw coded(UPSTREAM_BUDGET_EXCEEDED, `This request needed more than ${budget} upstream calls and was stopped`);
    }
  };
}
