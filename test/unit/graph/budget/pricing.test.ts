/**
 * Every field that reaches the upstream is declared in graph/bindings.ts, and the upstream
 * budget's estimator (graph/budget/estimate.ts) prices it from there. Which fields do is found
 * by running, not by reading a list that could be forgotten: each field of the schema with a
 * resolver is run, cold, over real HTTP against the mock upstream, under every path from a root
 * field to its type (a few levels deep); where the query with it makes more upstream calls than
 * the same query without it, the field must have a binding and the estimate with it must be
 * higher too. A field added to the schema whose resolver calls the upstream undeclared, or that
 * the estimator does not price, fails here.
 */
import {
  execute, getNamedType, isAbstractType, isNonNullType, isObjectType, parse, type GraphQLField, type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { readFileSync } from 'node:fs';
import { createSchema } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../../src/base/clock.js';
import { createLruCache } from '../../../../src/cache/lru-cache.js';
import { createTimeReader } from '../../../../src/catalog/opening-hours.js';
import { createLoaders } from '../../../../src/data/loaders.js';
import { createSources } from '../../../../src/data/sources.js';
import { createCursors } from '../../../../src/graph/arguments/cursors.js';
import { BINDINGS } from '../../../../src/graph/bindings.js';
import { estimateUpstreamCalls } from '../../../../src/graph/budget/estimate.js';
import { encodeId, type NodeType } from '../../../../src/graph/ids.js';
import { resolvers } from '../../../../src/graph/resolvers/index.js';
import { createUpstreamApi, type UpstreamApi } from '../../../../src/upstream/api.js';
import { startUpstream, type StartedUpstream } from '../../../helpers/upstream.js';

const TYPE_DEFS = readFileSync(new URL('../../../../schema.graphql', import.meta.url), 'utf8');
const schema: GraphQLSchema = createSchema({ typeDefs: TYPE_DEFS, resolvers: resolvers as never });
/** Object fields followed from a root field to the type of the field tried. */
const MAX_DEPTH = 3;
const cursors = createCursors('pricing test secret');
const TTL = { citiesMs: 60_000, sitesMs: 60_000, productsMs: 60_000 };

/** One step of a path: a field (with its arguments), and the type it is read as. */
interface Step {
  text: string;
  close: string;
  type: GraphQLObjectType;
}

interface Sample {
  siteCode: string;
  pointCode: string;
  goodsCode: string;
  cityCode: string;
  /** Per subscription field: the event its `resolve` turns into the field's value. */
  events: Record<string, unknown>;
}

let upstream: StartedUpstream;
let api: UpstreamApi;
let sample: Sample;

beforeAll(async () => {
  upstream = await startUpstream();
  api = createUpstreamApi(upstream.client);
  const site = upstream.mock.catalog.sites.find((s) => s.points.some((p) => p.cargolanes.some((l) => l.goodsCode)))!;
  const point = site.points.find((p) => p.cargolanes.some((l) => l.goodsCode))!;
  const detail = (await api.detail('site', site.code))!;
  const listed = (await api.list('sitesWithPoints', 1, 100)).items.find((s) => s?.code === site.code) ?? detail;
  const lane = detail.points!.find((p) => p.code === point.code)!.cargoLanes.find((l) => l.goodsCode)!;
  const goodsCode = lane.goodsCode!;
  // A stock alert's site, point and lane come from one read of list-with-points (every site watched).
  const alerted = listed.points!.find((p) => p.code === point.code)!;
  sample = {
    siteCode: site.code, pointCode: point.code, goodsCode, cityCode: site.cityCode,
    events: {
      siteStock: { value: detail },
      productStock: { value: { goodsCode, totalStock: 1, availability: [], updatedAt: '' } },
      stockAlerts: {
        value: {
          kind: 'LOW', site: listed, point: { ...alerted, site: listed }, lane: alerted.cargoLanes.find((l) => l.goodsCode === goodsCode),
          laneIndex: 0, stock: 0, previousStock: 1, threshold: 0, at: '',
        },
      },
    },
  };
});

afterAll(() => upstream.close());

describe('the upstream budget estimator', () => {
  it('declares every root field of the schema, and only fields of the schema', () => {
    const roots = [schema.getQueryType(), schema.getSubscriptionType()].flatMap((type) =>
      Object.keys(type?.getFields() ?? {}).map((field) => `${type!.name}.${field}`));
    expect(roots.filter((coordinate) => !Object.hasOwn(BINDINGS, coordinate))).toEqual([]);
    const fieldOf = (coordinate: string) => {
      const [type, field] = coordinate.split('.') as [string, string];
      const named = schema.getType(type);
      return named && 'getFields' in named ? named.getFields()[field] : undefined;
    };
    expect(Object.keys(BINDINGS).filter((coordinate) => fieldOf(coordinate) === undefined)).toEqual([]);
  });

  it('prices every field whose resolver calls the upstream, on every path to it', { timeout: 120_000 }, async () => {
    const unpriced: string[] = [];
    const reaching = new Set<string>();
    for (const root of [schema.getQueryType()!, schema.getSubscriptionType()!]) {
      for (const path of pathsFrom(root)) {
        const type = path.at(-1)?.type ?? root;
        for (const field of fieldsWithResolvers(type)) {
          const target = fieldText(type, field);
          const withField = await tryQuery(root, path, target);
          const without = await tryQuery(root, path, '__typename');
          if (withField.calls <= without.calls) continue;
          reaching.add(`${type.name}.${field.name}`);
          if (withField.estimate <= without.estimate) unpriced.push(`${documentOf(root, path, target)} (${withField.calls} calls)`);
        }
      }
    }
    expect(unpriced).toEqual([]);
    expect([...reaching].filter((coordinate) => !Object.hasOwn(BINDINGS, coordinate))).toEqual([]);
    // The run saw the upstream reached where it is known to be: the check checks something.
    expect([...reaching]).toEqual(expect.arrayContaining(['Query.cities', 'Query.node', 'Site.city', 'City.cityId', 'CargoLane.product']));
  });
});

// Private: the fields of `type` resolved by code of the gateway's own (a root field always is).
function fieldsWithResolvers(type: GraphQLObjectType): GraphQLField<unknown, unknown>[] {
  const own = (resolvers as Record<string, Record<string, unknown> | undefined>)[type.name] ?? {};
  const root = type === schema.getQueryType() || type === schema.getSubscriptionType();
  return Object.values(type.getFields()).filter((field) => root || Object.hasOwn(own, field.name));
}

// Private: every path of object fields from `root`, to MAX_DEPTH, each type once per path.
function pathsFrom(root: GraphQLObjectType): Step[][] {
  const paths: Step[][] = [[]];
  const grow = (path: Step[], type: GraphQLObjectType) => {
    if (path.length === MAX_DEPTH) return;
    for (const field of Object.values(type.getFields())) {
      const named = getNamedType(field.type);
      const types = isAbstractType(named) ? schema.getPossibleTypes(named) : isObjectType(named) ? [named] : [];
      for (const next of types) {
        if (next === root || path.some((step) => step.type === next)) continue;
        const on = next === named ? '' : `... on ${next.name} { `;
        const step = { text: `${fieldText(type, field, next)} { ${on}`, close: on === '' ? ' }' : ' } }', type: next };
        paths.push([...path, step]);
        grow([...path, step], next);
      }
    }
  };
  grow([], root);
  return paths;
}

// Private: a field with its required arguments (a real site, point, product or city of the mock),
// and a selection when it has one.
function fieldText(parent: GraphQLObjectType, field: GraphQLField<unknown, unknown>, as?: GraphQLObjectType): string {
  const args = field.args.filter((arg) => isNonNullType(arg.type) && arg.defaultValue === undefined)
    .map((arg) => `${arg.name}: ${JSON.stringify(sampleArg(`${parent.name}.${field.name}`, arg.name, as))}`);
  const text = args.length === 0 ? field.name : `${field.name}(${args.join(', ')})`;
  const named = getNamedType(field.type);
  if (as !== undefined || !(isObjectType(named) || isAbstractType(named))) return text;
  return `${text} { __typename }`;
}

function sampleArg(coordinate: string, arg: string, as: GraphQLObjectType | undefined): unknown {
  if (arg === 'id') return nodeId((as?.name ?? 'Site') as NodeType);
  if (arg === 'goodsCode') return sample.goodsCode;
  if (arg === 'code') return coordinate === 'Query.city' ? sample.cityCode : sample.siteCode;
  if (arg === 'lat' || arg === 'lng') return 31.2;
  throw new Error(`no sample for the argument ${coordinate}(${arg}:): add one`);
}

function nodeId(type: NodeType): string {
  if (type === 'Point') return encodeId('Point', sample.siteCode, sample.pointCode);
  return encodeId(type, type === 'City' ? sample.cityCode : type === 'Product' ? sample.goodsCode : sample.siteCode);
}

function documentOf(root: GraphQLObjectType, path: Step[], target: string): string {
  const keyword = root === schema.getSubscriptionType() ? 'subscription' : 'query';
  return `${keyword} { ${path.map((step) => step.text).join('')}${target}${path.map((step) => step.close).reverse().join('')} }`;
}

// Private: upstream calls a cold gateway makes for the query, and what the estimator says of it.
const tried = new Map<string, { calls: number; estimate: number }>();
async function tryQuery(root: GraphQLObjectType, path: Step[], target: string): Promise<{ calls: number; estimate: number }> {
  const text = documentOf(root, path, target);
  const known = tried.get(text);
  if (known !== undefined) return known;
  const document = parse(text);
  const operation = document.definitions[0]!;
  if (operation.kind !== 'OperationDefinition') throw new Error('an operation was expected');
  const planner = { facts: () => ({ cap: undefined, total: undefined }), isCached: () => false };
  const estimate = estimateUpstreamCalls(operation, {}, {}, planner, schema);
  const sources = createSources(api, createLruCache({ maxEntries: 10_000, clock: systemClock }), TTL, systemClock);
  const contextValue = {
    loaders: createLoaders(sources, {}), catalog: undefined, maxPageSize: 100, siteTime: createTimeReader('Asia/Shanghai', systemClock), cursors,
    scope: { readsTheTime: () => undefined, tag: () => undefined },
  };
  const before = upstream.mock.calls();
  const rootValue = root === schema.getSubscriptionType() ? sample.events[rootField(path, target)] : undefined;
  await execute({ schema, document, contextValue, rootValue });
  await settled();
  const result = { calls: upstream.mock.calls() - before, estimate };
  tried.set(text, result);
  return result;
}

function rootField(path: Step[], target: string): string {
  return (path[0]?.text ?? target).split(/[ ({]/)[0]!;
}

// Private: background loads (the product prefetch) end too before calls are counted.
async function settled(): Promise<void> {
  let quiet = 0;
  while (quiet < 3) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    quiet = upstream.mock.inFlight() === 0 ? quiet + 1 : 0;
  }
}
