/**
 * GraphQL documents generated from schema.graphql: random depth, aliases, inline and named
 * fragments, `@include`/`@skip` (and unknown directives), comments, arguments as literals or
 * variables, with values of the right type, the wrong type, out of range or oversized.
 */
import fc from 'fast-check';
import {
  getNamedType,
  getNullableType,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLArgument,
  type GraphQLCompositeType,
  type GraphQLInputType,
  type GraphQLObjectType,
} from 'graphql';
import { SCHEMA } from './answer-checks.js';

/** A generated request: the document, its variables and the operation to run. */
export interface GeneratedOperation {
  query: string;
  variables: Record<string, unknown>;
  operationName?: string;
}

/** Choices the generator makes, drawn up front so that fast-check can shrink them. */
interface Dice {
  next(): number;
}

const STRINGS = ['SH', 'BJ', 'G00001', 'S000001', 'P00000101', '', ' ', 'S  H', '12:00', '2024-01-01T12:00:00+08:00', '名侦探', '\u0000', '"quoted"', 'x'.repeat(5000)];
const INTS = [1, 2, 5, 10, 0, -1, 100, 101, 2 ** 31 - 1];
const FLOATS = [31.2, 121.4, 0, -90, 180, 5, 0.001, 1000, 1001, -1];
const ID_LIKE = ['WyJDaXR5IiwiU0giXQ', 'WyJTaXRlIiwiUzAwMDAwMSJd', 'not-an-id', '', 'WyJQcm9kdWN0IiwiRzAwMDAxIl0'];

/** Operations built from the schema, each from a list of dice throws. */
export const generatedOperation: fc.Arbitrary<GeneratedOperation> = fc
  .array(fc.nat({ max: 0xffff }), { minLength: 40, maxLength: 400 })
  .map((throws) => build(throws));

function build(throws: number[]): GeneratedOperation {
  let i = 0;
  const dice: Dice = { next: () => throws[i++ % throws.length]! + (i >= throws.length ? i : 0) };
  const ctx: Build = { dice, variables: {}, definitions: [], fragments: [], aliasCount: 0 };
  const depth = 1 + pick(dice, [1, 2, 3, 4, 5, 7]);
  const selection = selectionSet(SCHEMA.getQueryType()!, depth, ctx);
  const named = chance(dice, 0.5);
  const name = named ? pick(dice, ['Q', 'Fuzz', 'query_1', '__schema']) : '';
  const defs = ctx.definitions.length > 0 ? `(${ctx.definitions.join(', ')})` : '';
  let query = named || defs ? `query ${name}${defs} ${selection}` : selection;
  for (const fragment of ctx.fragments) query += `\n${fragment}`;
  if (chance(dice, 0.1)) query += `\nquery Other { __typename }`; // two operations: operationName decides
  const operationName = query.includes('query Other') ? pick(dice, [name || undefined, 'Other', 'Missing']) : undefined;
  return { query: comment(query, dice), variables: ctx.variables, ...(operationName ? { operationName } : {}) };
}

interface Build {
  dice: Dice;
  variables: Record<string, unknown>;
  definitions: string[];
  fragments: string[];
  aliasCount: number;
}

function selectionSet(type: GraphQLCompositeType, depth: number, ctx: Build): string {
  const { dice } = ctx;
  const parts: string[] = [];
  if (isInterfaceType(type) || !isObjectType(type)) {
    parts.push('__typename');
    for (const member of SCHEMA.getPossibleTypes(type)) {
      if (chance(dice, 0.5)) parts.push(`... on ${member.name} ${selectionSet(member, depth, ctx)}`);
    }
    if (isInterfaceType(type)) parts.push('id');
    return `{ ${parts.join(' ')} }`;
  }
  const fields = Object.values((type as GraphQLObjectType).getFields());
  const count = 1 + (dice.next() % 4);
  for (let n = 0; n < count; n += 1) {
    const field = fields[dice.next() % fields.length]!;
    const named = getNamedType(field.type);
    if (isCompositeType(named) && depth <= 0) continue;
    const alias = chance(dice, 0.2) ? `a${(ctx.aliasCount += 1)}: ` : '';
    const args = field.args.map((arg) => argument(arg, ctx)).filter((a): a is string => a !== undefined);
    const argText = args.length > 0 ? `(${args.join(', ')})` : '';
    const directive = chance(dice, 0.15) ? ` ${pick(dice, ['@include(if: true)', '@skip(if: false)', '@skip(if: true)', '@deprecated', '@unknown', '@include(if: $flag)'])}` : '';
    if (directive.includes('$flag') && !ctx.definitions.some((d) => d.startsWith('$flag'))) {
      ctx.definitions.push('$flag: Boolean!');
      ctx.variables.flag = pick(dice, [true, false, 'yes', null]);
    }
    const sub = isCompositeType(named) ? ` ${selectionSet(named, depth - 1, ctx)}` : '';
    parts.push(`${alias}${field.name}${argText}${directive}${sub}`);
  }
  if (parts.length === 0) parts.push('__typename');
  if (chance(dice, 0.1)) {
    const fragmentName = `F${ctx.fragments.length}`;
    ctx.fragments.push(`fragment ${fragmentName} on ${type.name} { ${parts.join(' ')} }`);
    return `{ ...${fragmentName} }`;
  }
  if (chance(dice, 0.03)) parts.push('doesNotExist');
  return `{ ${parts.join(' ')} }`;
}

/** An argument as a literal, as a variable, or left out (when it may be). */
function argument(arg: GraphQLArgument, ctx: Build): string | undefined {
  const { dice } = ctx;
  const required = isNonNullType(arg.type) && arg.defaultValue === undefined;
  if (!required && chance(dice, 0.5)) return undefined;
  if (chance(dice, 0.3)) {
    const name = `v${ctx.definitions.length}`;
    const declared = chance(dice, 0.85) ? String(arg.type) : pick(dice, ['String', 'Int', 'Float!', '[String]', 'Boolean', 'GeoInput']);
    ctx.definitions.push(`$${name}: ${declared}`);
    const value = inputValue(arg.type, dice);
    if (value !== undefined || chance(dice, 0.5)) ctx.variables[name] = value ?? null;
    return `${arg.name}: $${name}`;
  }
  return `${arg.name}: ${literal(inputValue(arg.type, dice))}`;
}

/** A value for `type`: mostly of that type, sometimes of another, out of range or oversized. */
function inputValue(type: GraphQLInputType, dice: Dice): unknown {
  if (chance(dice, 0.1)) return pick(dice, [null, 'wrong', 3.5, true, ['SH'], { lat: 1 }, 2 ** 40, 'x'.repeat(20_000), -1e308]);
  const inner = getNullableType(type);
  if (isListType(inner)) return [inputValue(inner.ofType, dice)];
  if (isInputObjectType(inner)) {
    const value: Record<string, unknown> = {};
    for (const field of Object.values(inner.getFields())) if (chance(dice, 0.9)) value[field.name] = inputValue(field.type, dice);
    return value;
  }
  if (isEnumType(inner)) return inner.getValues()[0]?.value;
  if (!isLeafType(inner)) return null;
  switch (inner.name) {
    case 'Int': return pick(dice, INTS);
    case 'Float': return pick(dice, FLOATS);
    case 'Boolean': return chance(dice, 0.5);
    case 'ID': return pick(dice, ID_LIKE);
    default: return pick(dice, STRINGS);
  }
}

/** `value` written as a GraphQL literal. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (typeof value === 'object') return `{ ${Object.entries(value).map(([k, v]) => `${k}: ${literal(v)}`).join(', ')} }`;
  if (typeof value === 'number' && !Number.isFinite(value)) return '1e999';
  return JSON.stringify(value);
}

/** Comments and whitespace between some tokens (never inside a string literal). */
function comment(query: string, dice: Dice): string {
  if (!chance(dice, 0.3)) return query;
  return query.replace(/ \{ /g, () => (chance(dice, 0.3) ? ` { # ${pick(dice, ['note', '{ "x" }', '日本', ''])}\n  ` : ' { '));
}

function chance(dice: Dice, p: number): boolean {
  return dice.next() % 1000 < p * 1000;
}

function pick<T>(dice: Dice, values: readonly T[]): T {
  return values[dice.next() % values.length]!;
}
