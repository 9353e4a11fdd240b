import type { FieldNode, FragmentDefinitionNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';

/** The names of the fields selected under `child` of the current field; a field that might be skipped counts. */
export function selectedFieldsOf(info: GraphQLResolveInfo, child: string): Set<string> {
  const names = new Set<string>();
  for (const node of info.fieldNodes) {
    for (const field of fieldsOf(node.selectionSet, info.fragments)) {
      if (field.name.value !== child) continue;
      for (const inner of fieldsOf(field.selectionSet, info.fragments)) names.add(inner.name.value);
    }
  }
  return names;
}

/** Whether the current field selects `path` below it, e.g. `['items', 'points', 'cargoLanes', 'product']`. */
export function selectsPath(info: GraphQLResolveInfo, path: readonly string[]): boolean {
  let level: readonly FieldNode[] = info.fieldNodes;
  for (const name of path) {
    level = level.flatMap((node) => fieldsOf(node.selectionSet, info.fragments)).filter((f) => f.name.value === name);
    if (level.length === 0) return false;
  }
  return true;
}

// Private: the fields of each selection set, worked out once: its spreads always name the same fragments.
const flattened = new WeakMap<SelectionSetNode, readonly FieldNode[]>();

/** The fields of a selection set, fragments flattened (a validated document has no fragment cycles). */
export function fieldsOf(
  selectionSet: SelectionSetNode | undefined,
  fragments: Record<string, FragmentDefinitionNode>,
): readonly FieldNode[] {
  if (!selectionSet) return [];
  let fields = flattened.get(selectionSet);
  if (fields === undefined) {
    fields = selectionSet.selections.flatMap((selection) => {
      if (selection.kind === 'Field') return [selection];
      if (selection.kind === 'InlineFragment') return fieldsOf(selection.selectionSet, fragments);
      return fieldsOf(fragments[selection.name.value]?.selectionSet, fragments);
    });
    flattened.set(selectionSet, fields);
  }
  return fields;
}
