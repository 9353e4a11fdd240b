/**
 * graphql-jit's errors made what graphql-js makes them, so that masking and the answer's bytes do
 * not depend on the executor: located by their AST nodes (from which yoga rebuilds errors), a
 * non-null violation as a plain error, one per nullable field, in the order of the document.
 */
import {
  getNamedType, getNullableType, getOperationAST, GraphQLNonNull, isInterfaceType, isListType, isNonNullType,
  isObjectType, Kind, locatedError, visit, type DocumentNode, type ExecutionArgs, type FieldNode,
  type FragmentDefinitionNode, type GraphQLError, type GraphQLField, type GraphQLNamedType, type GraphQLObjectType, type GraphQLOutputType,
  type GraphQLSchema, type SelectionSetNode, type SourceLocation,
} from 'graphql';

/**
 * graphql-jit's errors as graphql-js reports them: of the non-null failures that null one
 * nullable field, only the first is kept, placed in the order of the document.
 */
export function asGraphQLJsErrors(errors: readonly GraphQLError[], args: ExecutionArgs): GraphQLError[] {
  const shape = shapeOf(args);
  const placed: Array<{ error: GraphQLError; place: Place | undefined }> = [];
  const propagated: typeof placed = [];
  const nulled = new Set<string>();
  for (const error of errors) {
    const place = shape && error.path ? placeOf(shape, error.path) : undefined;
    if (place === undefined || !place.nonNull) placed.push({ error, place });
    else if (!nulled.has(place.nullable)) {
      nulled.add(place.nullable);
      propagated.push({ error, place });
    }
  }
  for (const entry of propagated) {
    const at = placed.findIndex(({ place }) => place !== undefined && precedes(entry.place!.order, place.order));
    placed.splice(at === -1 ? placed.length : at, 0, entry);
  }
  const fields = fieldsByLocation(args.document);
  return placed.map(({ error }) => relocated(error, fields));
}

// Private: a graphql-jit error as graphql-js locates it; a non-null violation becomes a plain Error, as there.
function relocated(error: GraphQLError, fields: Map<string, FieldNode>): GraphQLError {
  const nodes = error.locations?.map((location) => fields.get(key(location))).filter((node) => node !== undefined);
  return locatedError(error.originalError ?? new Error(error.message), nodes?.length ? nodes : undefined, error.path);
}

interface Shape {
  schema: GraphQLSchema;
  root: GraphQLObjectType;
  selections: readonly SelectionSetNode[];
  fragments: Map<string, FragmentDefinitionNode>;
}

/** Where an error's path leads in the operation. */
interface Place {
  /** Position of each step: a field's among its siblings (first occurrence), an item's index. */
  order: number[];
  /** Whether the field (or list item) at the end of the path is non-null. */
  nonNull: boolean;
  /** The path of the nearest nullable field (or item) on the way, dot-joined; '' for `data` itself. */
  nullable: string;
}

function shapeOf({ schema, document, operationName }: ExecutionArgs): Shape | undefined {
  const operation = getOperationAST(document, operationName);
  const root = schema.getQueryType();
  if (!operation || !root) return undefined;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return { schema, root, selections: [operation.selectionSet], fragments };
}

// Private: follows a response path through the operation's selections and the schema's types.
function placeOf(shape: Shape, path: ReadonlyArray<string | number>): Place | undefined {
  let type: GraphQLOutputType = new GraphQLNonNull(shape.root);
  let selections = shape.selections;
  const order: number[] = [];
  let nullable = 0;
  for (const [step, segment] of path.entries()) {
    const unwrapped: GraphQLOutputType = getNullableType(type);
    if (typeof segment === 'number') {
      if (!isListType(unwrapped)) return undefined;
      type = unwrapped.ofType as GraphQLOutputType;
      order.push(segment);
    } else {
      const found = fieldsNamed(shape, selections, segment);
      if (!found) return undefined;
      const owner: GraphQLNamedType = found.condition ?? getNamedType(unwrapped);
      const field: GraphQLField<unknown, unknown> | undefined = isObjectType(owner) || isInterfaceType(owner) ? owner.getFields()[found.nodes[0]!.name.value] : undefined;
      if (!field) return undefined;
      type = field.type;
      order.push(found.index);
      selections = found.nodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));
    }
    if (!isNonNullType(type)) nullable = step + 1;
  }
  return { order, nonNull: isNonNullType(type), nullable: path.slice(0, nullable).join('.') };
}

// Private: the fields answering `responseKey` in these selections (fragments included), the
// position of that key among the selections' keys, and the object type a fragment narrowed to.
function fieldsNamed(shape: Shape, selections: readonly SelectionSetNode[], responseKey: string) {
  const keys: string[] = [];
  const nodes: FieldNode[] = [];
  let condition: GraphQLNamedType | undefined;
  const walk = (set: SelectionSetNode, narrowed: GraphQLNamedType | undefined): void => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const name = (selection.alias ?? selection.name).value;
        if (!keys.includes(name)) keys.push(name);
        if (name === responseKey) {
          nodes.push(selection);
          condition ??= narrowed;
        }
        continue;
      }
      const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : shape.fragments.get(selection.name.value);
      if (!fragment) continue;
      const named = fragment.typeCondition && shape.schema.getType(fragment.typeCondition.name.value);
      walk(fragment.selectionSet, named && isObjectType(named) ? named : narrowed);
    }
  };
  for (const set of selections) walk(set, undefined);
  return nodes.length === 0 ? undefined : { nodes, index: keys.indexOf(responseKey), condition };
}

function precedes(a: number[], b: number[]): boolean {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return a.length < b.length;
}

// Private: a document's fields by the line and column they start at.
function fieldsByLocation(document: DocumentNode): Map<string, FieldNode> {
  const fields = new Map<string, FieldNode>();
  visit(document, { Field: (node) => void (node.loc && fields.set(key(node.loc.startToken), node)) });
  return fields;
}

function key({ line, column }: SourceLocation): string {
  return `${line}:${column}`;
}
