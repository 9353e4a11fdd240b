/**
 * The per-request context: fresh DataLoaders over the shared, cache-backed sources.
 */
import { createLoaders, type Loaders } from './loaders/loaders.js';
import type { Sources } from './loaders/sources.js';

export interface GatewayContext {
  loaders: Loaders;
  /** The largest `pageSize` a client may ask for (`MAX_PAGE_SIZE`). */
  maxPageSize: number;
}

export function createContextFactory(sources: Sources, maxPageSize: number): () => GatewayContext {
  return () => ({ loaders: createLoaders(sources), maxPageSize });
}
