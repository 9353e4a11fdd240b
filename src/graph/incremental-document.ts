/**
 * Whether a document asks for an answer in parts anywhere: only yoga's executor runs such a
 * document. Worked out once per document object.
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
