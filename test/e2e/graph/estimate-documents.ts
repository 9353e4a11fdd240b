/**
 * Valid GraphQL documents generated from the schema for the upstream-estimate property: each is
 * built around a target path (so that every field within `TARGET_DEPTH` is asked for), with
 * random other fields, aliases and arguments of the right type and range drawn from the mock's
 * own data, so that the gateway runs them rather than refusing them.
 */
import {
  getNamedType, isAbstractType, isLeafType, isNonNullType, isObjectType, type GraphQLArgument, type GraphQLField,
  type GraphQLNamedType, type GraphQLObjectType, type GraphQLSchema,
} from 'graphql';
import { encodeId, type NodeType } from '../../../src/graph/ids.js';
import type { Catalog } from '../../../src/mock-upstream/data.js';

/** One step of a target path: a field of `parent`, read as `as` when its type is abstract. */
export interface Step {
  parent: GraphQLObjectType;
  field: string;
  as?: GraphQLObjectType;
}

/** A generated document, and the coordinates (`Type.field`) it asks for. */
export interface Generated {
  root: GraphQLObjectType;
  text: string;
  coordinates: Set<string>;
}

/** Choices drawn up front, so that fast-check can shrink them. */
export interface Dice {
  next(): number;
}

/** Fields below a root field the generator goes at most. */
const MAX_DEPTH = 5;

/** One path to each field within `depth` of the roots (a root field is at depth 1), breadth first. */
export function targetsWithin(schema: GraphQLSchema, roots: GraphQLObjectType[], depth: number): Step[][] {
  const seen = new Map<string, Step[]>();
  let level: Step[][] = roots.flatMap((root) => stepsOf(schema, root).map((step) => [step]));
  for (let d = 1; d <= depth && level.length > 0; d += 1) {
    const next: Step[][] = [];
    for (const path of level) {
      const last = path.at(-1)!;
      const coordinate = `${last.parent.name}.${last.field}`;
      if (!seen.has(coordinate)) seen.set(coordinate, path);
      const type = last.as ?? getNamedType(last.parent.getFields()[last.field]!.type);
      if (isObjectType(type)) next.push(...stepsOf(schema, type).map((step) => [...path, step]));
    }
    level = next;
  }
  return [...seen.values()];
}

// Private: the fields of `parent`, an abstract one once per type it can be.
function stepsOf(schema: GraphQLSchema, parent: GraphQLObjectType): Step[] {
  return Object.values(parent.getFields()).flatMap((field) => {
    const named = getNamedType(field.type);
    if (!isAbstractType(named)) return [{ parent, field: field.name }];
    return schema.getPossibleTypes(named).map((as) => ({ parent, field: field.name, as }));
  });
}

/** Builds a document asking for `target` and more; a subscription asks for one root field. */
export function buildDocument(schema: GraphQLSchema, catalog: Catalog, target: Step[], dice: Dice): Generated {
  const root = target[0]!.parent;
  const b: Builder = { schema, catalog, dice, coordinates: new Set(), aliases: 0 };
  const single = root === schema.getSubscriptionType();
  const keyword = single ? 'subscription' : 'query';
  return { root, text: `${keyword} ${selection(b, root, target, 1, single ? 0 : 0.1)}`, coordinates: b.coordinates };
}

interface Builder {
  schema: GraphQLSchema;
  catalog: Catalog;
  dice: Dice;
  coordinates: Set<string>;
  aliases: number;
}

function selection(b: Builder, type: GraphQLObjectType, target: Step[], depth: number, odds = 0.2): string {
  const parts: string[] = [];
  for (const field of Object.values(type.getFields())) {
    const targeted = target[0]?.field === field.name && target[0].parent === type;
    if (!targeted && !chance(b.dice, odds)) continue;
    const named = getNamedType(field.type);
    if (!isLeafType(named) && depth >= MAX_DEPTH && !targeted) continue;
    parts.push(fieldText(b, type, field, named, targeted ? target : [], depth));
    // An alias asks again with other arguments (not at the root: a subscription has one field).
    if (depth > 1 && !isLeafType(named) && chance(b.dice, 0.08)) parts.push(`a${(b.aliases += 1)}: ${fieldText(b, type, field, named, [], depth)}`);
  }
  if (parts.length === 0) parts.push('__typename');
  return `{ ${parts.join(' ')} }`;
}

function fieldText(b: Builder, type: GraphQLObjectType, field: GraphQLField<unknown, unknown>, named: GraphQLNamedType, target: Step[], depth: number): string {
  b.coordinates.add(`${type.name}.${field.name}`);
  const as = target[0]?.as ?? (isAbstractType(named) ? pick(b.dice, b.schema.getPossibleTypes(named)) : undefined);
  const args = argumentsOf(b, `${type.name}.${field.name}`, field.args, as);
  const head = args.length === 0 ? field.name : `${field.name}(${args.join(', ')})`;
  if (isLeafType(named)) return head;
  const rest = target.slice(1);
  if (as !== undefined) return `${head} { __typename ... on ${as.name} ${selection(b, as, rest, depth + 1)} }`;
  return `${head} ${selection(b, named as GraphQLObjectType, rest, depth + 1)}`;
}

// Private: required arguments always, others at even odds; never `first` with `last`, no cursors.
function argumentsOf(b: Builder, coordinate: string, args: readonly GraphQLArgument[], as: GraphQLObjectType | undefined): string[] {
  const chosen: string[] = [];
  for (const arg of args) {
    const required = isNonNullType(arg.type) && arg.defaultValue === undefined;
    if (!required && !chance(b.dice, 0.5)) continue;
    if (arg.name === 'last' && chosen.some((text) => text.startsWith('first:'))) continue;
    if (arg.name === 'first' && args.some((a) => a.name === 'last') && chance(b.dice, 0.3)) continue;
    const value = valueOf(b, coordinate, arg.name, as);
    if (value !== undefined) chosen.push(`${arg.name}: ${value}`);
  }
  return chosen;
}

// Private: a valid value, as a literal; undefined for cursors (only the gateway makes them).
function valueOf(b: Builder, coordinate: string, arg: string, as: GraphQLObjectType | undefined): string | undefined {
  const { dice, catalog } = b;
  const site = () => (chance(dice, 0.1) ? 'S999999' : pick(dice, catalog.sites).code);
  const product = () => (chance(dice, 0.1) ? 'G99999' : pick(dice, catalog.products).goodsCode);
  const city = () => pick(dice, catalog.cities).code;
  const near = () => pick(dice, ['{ lat: 31.23, lng: 121.47 }', '{ lat: 39.9, lng: 116.4 }']);
  const values: Record<string, () => unknown> = {
    page: () => pick(dice, [1, 1, 2, 3]),
    pageSize: () => pick(dice, [1, 5, 10, 50, 100]),
    first: () => pick(dice, [1, 5, 20, 50, 100]),
    last: () => pick(dice, [1, 5, 20]),
    code: () => (coordinate === 'Query.city' ? city() : site()),
    goodsCode: product,
    hasProduct: product,
    cityCode: city,
    enabledOnly: () => chance(dice, 0.5),
    inStockOnly: () => chance(dice, 0.5),
    lat: () => pick(dice, [31.23, 39.9]),
    lng: () => pick(dice, [121.47, 116.4]),
    radiusKm: () => pick(dice, [1, 5, 50, 1000]),
    at: () => pick(dice, ['12:00', '03:00']),
    openAt: () => pick(dice, ['12:00', '03:00']),
    text: () => pick(dice, catalog.products).productName.slice(0, 2),
    ipName: () => pick(dice, catalog.products).ipName,
    threshold: () => pick(dice, [0, 1, 3]),
    siteCodes: () => Array.from({ length: 1 + (dice.next() % 3) }, site),
    id: () => nodeId(b, (as?.name ?? 'Site') as NodeType),
  };
  if (arg === 'after' || arg === 'before') return undefined;
  if (arg === 'near') return near();
  const value = values[arg];
  if (value === undefined) throw new Error(`no value for the argument ${coordinate}(${arg}:): add one`);
  return JSON.stringify(value());
}

function nodeId(b: Builder, type: NodeType): string {
  const site = pick(b.dice, b.catalog.sites);
  switch (type) {
    case 'City': return encodeId('City', pick(b.dice, b.catalog.cities).code);
    case 'Product': return encodeId('Product', pick(b.dice, b.catalog.products).goodsCode);
    case 'Point': return encodeId('Point', site.code, pick(b.dice, site.points).code);
    case 'Site': return encodeId('Site', site.code);
  }
}

function chance(dice: Dice, p: number): boolean {
  return dice.next() % 1000 < p * 1000;
}

function pick<T>(dice: Dice, values: readonly T[]): T {
  return values[dice.next() % values.length]!;
}
