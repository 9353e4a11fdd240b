/** The upstream budget's hard stop while an operation runs (graph/checks/budget.ts refuses before). */
import type { ErrorCode } from '../../base/errors.js';
import { coded } from '../../base/graph-errors.js';

export const UPSTREAM_BUDGET_EXCEEDED = 'UPSTREAM_BUDGET_EXCEEDED' satisfies ErrorCode;

/** What holds a count: a request object (a whole batch shares it), or a subscription event's own. */
export interface ChargeHolder {
  charge: (() => void) | undefined;
}

/** Counts the upstream calls a request starts, on the request; refuses those beyond `budget`. */
export function createUpstreamCharges(budget: number): (holder: ChargeHolder) => () => void {
  return (holder) => (holder.charge ??= createUpstreamCharge(budget));
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
