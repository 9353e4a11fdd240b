/** The catalog index as one request sees it: each part read once, its age and staleness told to the request. */
import type { LoadScope } from '../cache/cache.js';
import type { ProductsCatalog, SitesCatalog } from './catalog.js';
import type { CatalogIndex } from './catalog-index.js';
import type { Refreshing } from './refreshing.js';

export interface CatalogView {
  sites(): Promise<SitesCatalog>;
  products(): Promise<ProductsCatalog>;
}

/** The view of `index` for the request of `scope`. */
export function viewOf(index: CatalogIndex, scope: LoadScope): CatalogView {
  return {
    sites: once(() => served(index.sites, 'index:sites', scope)),
    products: once(() => served(index.products, 'index:products', scope)),
  };
}

// Private: a part of the index, telling the request its age and staleness.
async function served<T>(part: Refreshing<T>, key: string, scope: LoadScope): Promise<T> {
  const { value, ageMs, stale } = await part.read(() => scope.signal);
  const ageSeconds = Math.floor(ageMs / 1000);
  scope.onDataAge?.(ageSeconds);
  if (stale) scope.onStale?.({ key, ageSeconds });
  return value;
}

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}
