/**
 * Whether a document asks for an answer in parts (`@defer`, `@stream`) anywhere: such a document
 * is yoga's executor's to run (use-incremental-delivery.ts), never the lean path's nor graphql-jit's.
 * Worked out once per document (yoga's parser cache hands out one object per query text).
 */
import { BREAK, Kind, visit, type DocumentNode } from 'graphql';

const answers = new WeakMap<DocumentNode, boolean>();

export function asksForParts(document: DocumentNode): boolean {
  let found = answers.get(document);
  if (found !== undefined) return found;
  found = false;
  visit(document, {
    [Kind.DIRECTIVE](node) {
      if (node.name.value !== 'defer' && node.name.value !== 'stream') return undefined;
      found = true;
      return BREAK;
    },
  });
  answers.set(document, found);
  return found;
}
