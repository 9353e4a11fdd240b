/**
 * The item limit: an operation that could return more list entries (graph/items.ts) than the
 * limit is refused before it runs (`ITEM_LIMIT_EXCEEDED`), whatever answers it: fields served
 * from the catalog index cost the upstream nothing, yet can ask for millions of entries. Runs
 * after the argument checks, so every bound it reads is in range.
 */
import { coded } from '../../base/graph-errors.js';
import { countItems, EDGE_WEIGHT } from '../items.js';
import type { RequestScope } from '../../request/scope.js';
import { isRunning, runningOperation, type OperationCheck } from '../running-operation.js';

export const ITEM_LIMIT_EXCEEDED = 'ITEM_LIMIT_EXCEEDED';

export function itemCheck(maxItems: number): OperationCheck<{ scope?: RequestScope }> {
  return (args, refuse) => {
    const running = runningOperation(args);
    if (!isRunning(running)) return;
    const items = countItems(args.schema, running);
    if (items <= maxItems) return;
    args.contextValue.scope?.dispose();
    refuse({
      errors: [
        coded(
          ITEM_LIMIT_EXCEEDED,
          `This operation could return about ${items} list entries (a connection's edge counts as ${EDGE_WEIGHT}), more than one operation may; ask for fewer (a smaller first, last or pageSize), or split it`,
          { extensions: { items } },
        ),
      ],
    });
  };
}
