/**
 * yoga's parser caches, bounded in bytes as well as entries: keyed by whole texts, whose comments
 * and strings cost no tokens, yoga's defaults let a client fill hundreds of MB.
 */
import { LRUCache } from 'lru-cache';
import type { DocumentNode } from 'graphql';

/** Heap bytes counted per character of a parsed document's text. */
const DOCUMENT_BYTES_PER_CHARACTER = 100;
/** Bytes counted for a parse error besides its text. */
const ERROR_OVERHEAD_BYTES = 1024;

export interface ParserCacheOptions {
  /** Bytes the parsed documents may take together. Default 32 MiB. */
  documentBytes?: number;
  /** Bytes the parse errors may take together. Default 4 MiB. */
  errorBytes?: number;
}

export function createParserCaches({ documentBytes = 32 * 1024 * 1024, errorBytes = 4 * 1024 * 1024 }: ParserCacheOptions = {}) {
  const common = { max: 1024, ttl: 3_600_000 } as const;
  return {
    documentCache: new LRUCache<string, DocumentNode>({
      ...common,
      maxSize: documentBytes,
      sizeCalculation: (_document, text) => Math.max(1, text.length * DOCUMENT_BYTES_PER_CHARACTER),
    }),
    errorCache: new LRUCache<string, object>({
      ...common,
      maxSize: errorBytes,
      sizeCalculation: (_error, text) => text.length * 2 + ERROR_OVERHEAD_BYTES,
    }),
  };
}
