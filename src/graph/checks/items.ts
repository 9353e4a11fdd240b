/**
 * The item limit: an operation that could return more list entries than
 * `MAX_ITEMS_PER_OPERATION` is refused before it runs (`ITEM_LIMIT_EXCEEDED`, naming its count),
 * whatever answers it. The upstream budget prices what an operation costs the upstream; fields
 * answered from the catalog index cost it nothing, yet fifteen aliased `searchProducts(first: 100)
 * { availability(first: 1000) }` ask for 1.5 million entries, megabytes of answer and seconds of
 * CPU. The static cost (plugins/protection/use-query-limits.ts) cannot see that: it does not multiply by list sizes.
 *
 * The count is graph/items.ts's (a connection's edge counts as `EDGE_WEIGHT` entries). Runs
 * after the argument checks, so every bound it reads is within its own range. A subscription is
 * counted per event, before it starts: each event resolves its whole selection.
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
