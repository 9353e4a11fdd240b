/**
 * What every answer of the gateway must be, whatever it was asked and whatever the upstream sent:
 * GraphQL's response shape (`data` and/or `errors`, every error coded), data that fits the
 * schema's types (non-null fields present, Int within 32 bits, Float finite) and the gateway's
 * normalisation rules (stock never negative). Returns the problems found, empty when none.
 */
import { readFileSync } from 'node:fs';
import {
  buildSchema,
  getNamedType,
  getNullableType,
  isLeafType,
  isListType,
  isNonNullType,
  Kind,
  parse,
  type GraphQLCompositeType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type SelectionSetNode,
  type FieldNode,
  type FragmentDefinitionNode,
  isObjectType,
  isAbstractType,
  type OperationDefinitionNode,
} from 'graphql';

/** The gateway's schema, from the one schema source. */
export const SCHEMA: GraphQLSchema = buildSchema(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8'));

/** Fields that count items, never below 0. */
const NEVER_NEGATIVE = new Set(['stock', 'totalStock', 'lanes', 'emptyLanes', 'total']);

const INT_MAX = 2 ** 31 - 1;
const INT_MIN = -(2 ** 31);

/** Problems with a parsed response body as GraphQL: shape and error codes. */
export function shapeProblems(body: unknown): string[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [`not a JSON object: ${preview(body)}`];
  const answer = body as { data?: unknown; errors?: unknown };
  const problems: string[] = [];
  if (!('data' in answer) && !('errors' in answer)) problems.push('neither data nor errors');
  if ('errors' in answer) {
    if (!Array.isArray(answer.errors) || answer.errors.length === 0) problems.push(`errors is not a non-empty list: ${preview(answer.errors)}`);
    else for (const error of answer.errors) problems.push(...errorProblems(error));
  }
  return problems;
}

/** The `extensions.code` of every error of a parsed body. */
export function errorCodes(body: unknown): string[] {
  const errors = (body as { errors?: Array<{ extensions?: { code?: unknown } }> } | null)?.errors;
  return Array.isArray(errors) ? errors.map((e) => String(e?.extensions?.code)) : [];
}

/**
 * Problems with `data` of an answer to `query` (one operation; `operationName` picks one of
 * several): every selected field present with a value of its type, and the normalisation rules.
 */
export function dataProblems(query: string, data: unknown, operationName?: string): string[] {
  if (data === null || data === undefined) return [];
  const document = parse(query);
  const fragments = new Map<string, FragmentDefinitionNode>();
  let operation: OperationDefinitionNode | undefined;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    if (definition.kind === Kind.OPERATION_DEFINITION && (operationName === undefined || definition.name?.value === operationName)) {
      operation ??= definition;
    }
  }
  if (operation === undefined) return ['no such operation'];
  const problems: string[] = [];
  checkObject(SCHEMA.getQueryType()!, operation.selectionSet, data, 'data', { fragments, problems });
  return problems;
}

interface Walk {
  fragments: Map<string, FragmentDefinitionNode>;
  problems: string[];
}

// Private: the fields of `selectionSet` on `value`, an object of `type` (or one of its members).
function checkObject(type: GraphQLCompositeType, selectionSet: SelectionSetNode, value: unknown, path: string, walk: Walk): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    walk.problems.push(`${path}: expected an object of ${type.name}, got ${preview(value)}`);
    return;
  }
  const object = value as Record<string, unknown>;
  const concrete = isAbstractType(type) ? SCHEMA.getType(String(object.__typename)) : type;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      const key = selection.alias?.value ?? selection.name.value;
      // A field skipped by a literal condition adds nothing, even where another field of the same
      // key is there (fuzzer seed 429817051: `cities @skip(if: true) { a1: … } cities { … }`).
      if (skippedByLiteral(selection)) continue;
      if (selection.directives?.some((d) => d.name.value === 'include' || d.name.value === 'skip') && !(key in object)) continue;
      if (selection.name.value === '__typename') continue;
      const fields = concrete && (isObjectType(concrete) || isAbstractType(concrete)) ? (concrete as { getFields?: () => Record<string, { type: GraphQLOutputType }> }).getFields?.() : undefined;
      const field = fields?.[selection.name.value];
      if (field === undefined) continue; // introspection or a member's field we cannot see
      if (!(key in object)) {
        walk.problems.push(`${path}.${key}: missing`);
        continue;
      }
      checkValue(field.type, selection.selectionSet, object[key], `${path}.${key}`, selection.name.value, walk);
    } else {
      const typeName = selection.kind === Kind.INLINE_FRAGMENT ? selection.typeCondition?.name.value : walk.fragments.get(selection.name.value)?.typeCondition.name.value;
      const set = selection.kind === Kind.INLINE_FRAGMENT ? selection.selectionSet : walk.fragments.get(selection.name.value)?.selectionSet;
      if (set === undefined) continue;
      if (typeName !== undefined && concrete !== undefined && typeName !== concrete?.name && !isAbstractType(SCHEMA.getType(typeName)!)) continue;
      checkObject(type, set, value, path, walk);
    }
  }
}

// Private: whether `@skip(if: true)` or `@include(if: false)`, written as literals, leave the field out.
function skippedByLiteral(selection: FieldNode): boolean {
  return (selection.directives ?? []).some((directive) => {
    const condition = directive.arguments?.find((argument) => argument.name.value === 'if')?.value;
    if (condition?.kind !== Kind.BOOLEAN) return false;
    return (directive.name.value === 'skip' && condition.value) || (directive.name.value === 'include' && !condition.value);
  });
}

// Private: one value of `type` at `path`; `fieldName` tells the normalisation rule that applies.
function checkValue(type: GraphQLOutputType, selectionSet: SelectionSetNode | undefined, value: unknown, path: string, fieldName: string, walk: Walk): void {
  if (value === null) {
    if (isNonNullType(type)) walk.problems.push(`${path}: null in a non-null field`);
    return;
  }
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    if (!Array.isArray(value)) walk.problems.push(`${path}: expected a list, got ${preview(value)}`);
    else value.forEach((item, i) => checkValue(nullable.ofType, selectionSet, item, `${path}[${i}]`, fieldName, walk));
    return;
  }
  const named = getNamedType(type);
  if (!isLeafType(named)) {
    if (selectionSet) checkObject(named as GraphQLCompositeType, selectionSet, value, path, walk);
    return;
  }
  const ok = {
    Int: Number.isInteger(value) && (value as number) >= INT_MIN && (value as number) <= INT_MAX,
    Float: typeof value === 'number' && Number.isFinite(value),
    String: typeof value === 'string',
    ID: typeof value === 'string',
    Boolean: typeof value === 'boolean',
  }[named.name] ?? true;
  if (!ok) walk.problems.push(`${path}: not a valid ${named.name}: ${preview(value)}`);
  if (NEVER_NEGATIVE.has(fieldName) && typeof value === 'number' && value < 0) walk.problems.push(`${path}: negative ${fieldName} ${value}`);
}

// Private: one error: a message and a SCREAMING_SNAKE `extensions.code`.
function errorProblems(error: unknown): string[] {
  const e = error as { message?: unknown; extensions?: { code?: unknown } } | null;
  const problems: string[] = [];
  if (typeof e?.message !== 'string') problems.push(`error without a message: ${preview(error)}`);
  const code = e?.extensions?.code;
  if (typeof code !== 'string' || !/^[A-Z][A-Z0-9_]*$/.test(code)) problems.push(`error without a code: ${preview(error)}`);
  return problems;
}

/** A short view of a value, for problem messages. */
export function preview(value: unknown): string {
  const text = value === undefined ? 'undefined' : JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 200)}… (${text.length} chars)` : text;
}
