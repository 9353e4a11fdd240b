import type { PageModel } from '../../data/models.js';

/** One page of a list held in memory (the catalog index), as a client page. */
export function pageOf<T>(items: readonly T[], page: number, pageSize: number): PageModel<T> {
  const start = (page - 1) * pageSize;
  return { items: items.slice(start, start + pageSize), total: items.length, page, pageSize };
}

/** `hasNextPage` of every page type. */
export const pageResolvers = {
  hasNextPage: ({ page, pageSize, total }: PageModel<unknown>) => page * pageSize < total,
};
