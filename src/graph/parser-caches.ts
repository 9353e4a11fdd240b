/**
 * yoga's parser caches, bounded in bytes. By default yoga keeps 1,024 parsed documents and 1,024
 * parse errors for an hour, keyed by their whole text: with long texts (comments and string
 * literals cost no tokens) that is hundreds of MB a client can fill. Here each entry counts what
 * it holds. A parsed document weighs about 100 bytes of heap per character of dense GraphQL
 * (measured with graphql 16: a 169-character query takes 17 KB), and a parse error keeps its
 * source text. Validation results live as long as their document (yoga keys them by it).
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
