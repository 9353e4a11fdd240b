/**
 * Whether a document asks for an answer in parts anywhere: only yoga's executor runs such a
 * document. Worked out once per document object.
 */
import { BREAK, Kind, valueFromASTUntyped, visit, type ASTNode, type DirectiveNode, type DocumentNode, type ExecutionArgs } from 'graphql';
import { isRunning, runningOperation } from './running-operation.js';

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

/** Whether the running operation or its fragments have a `@defer` or `@stream` whose `if` is not false. */
export function runningAsksForParts(args: ExecutionArgs): boolean {
  const running = runningOperation(args);
  if (!isRunning(running)) return false; // execution reports why it cannot run
  const seen = new Set<string>();
  const pending: ASTNode[] = [running.operation];
  let found = false;
  while (pending.length > 0 && !found) {
    visit(pending.pop()!, {
      FragmentSpread(node) {
        const fragment = running.fragments[node.name.value];
        if (fragment !== undefined && !seen.has(fragment.name.value)) {
          seen.add(fragment.name.value);
          pending.push(fragment);
        }
      },
      Directive(node: DirectiveNode) {
        if (node.name.value !== 'defer' && node.name.value !== 'stream') return undefined;
        const condition = node.arguments?.find((arg) => arg.name.value === 'if');
        if (condition !== undefined && valueFromASTUntyped(condition.value, running.variables) === false) return undefined;
        found = true;
        return BREAK;
      },
    });
  }
  return found;
}
