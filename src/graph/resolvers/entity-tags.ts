/**
 * An answer's tags from what it shows (request/tags.ts, README "Purging"): each field that hands
 * out an entity names it on the execution's scope, whatever cache level its data came from (a
 * loader's fetch, the shared cache, a per-request memo, the catalog index). Derived once from the
 * schema, so that no resolver has to remember to:
 *
 * - The entity types are those Query looks up by a code: `site(code:)` makes Site an entity
 *   tagged `site:<its code>`, `product(goodsCode:)` Product `product:<its goodsCode>`.
 * - A lookup names the code asked for, found or not: an answer saying there is no such entity is
 *   reached by a purge of it, once it exists.
 * - Every other field whose type is an entity type (`Site.city`, `CargoLane.product`,
 *   `Point.site`, …) names each entity it resolves to.
 * - The items of a list (a page's `items`, an edge's `node`) are named by the list instead,
 *   which the field making the page names (data/loaders.ts `page`, graph/resolvers/catalog.ts).
 *
 * The code is read from the model, never from the answer: a query need not select it.
 */
import {
  defaultFieldResolver, getNamedType, getNullableType, isObjectType, type GraphQLField, type GraphQLFieldResolver,
  type GraphQLObjectType, type GraphQLSchema,
} from 'graphql';
import type { GatewayContext } from '../context.js';

/**
 * Makes every field of `schema` that hands out an entity name it (see above): its resolvers are
 * wrapped in place, before the schema serves. Returns `schema`.
 */
export function tagEntitiesShown(schema: GraphQLSchema): GraphQLSchema {
  const entities = entityTypes(schema);
  const queryType = schema.getQueryType();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__') || isListItems(type)) continue;
    for (const field of Object.values(type.getFields())) {
      const entity = entities.get(getNamedType(field.type).name);
      if (entity === undefined) continue;
      const lookup = type === queryType && field.name === entity.kind;
      field.resolve = lookup ? namingAsked(field, entity) : namingResolved(field, entity);
    }
  }
  return schema;
}

// Private: how an entity type's models are tagged: the tag's kind, and the model's property holding its code.
interface EntityTag {
  kind: string;
  codeField: string;
}

// Private: the entity types by name, from Query's lookups by code (one argument, named as a field
// of the type they answer).
function entityTypes(schema: GraphQLSchema): Map<string, EntityTag> {
  const entities = new Map<string, EntityTag>();
  for (const field of Object.values(schema.getQueryType()?.getFields() ?? {})) {
    const [argument, ...others] = field.args;
    const type = getNullableType(field.type);
    if (argument === undefined || others.length > 0 || !isObjectType(type) || type.getFields()[argument.name] === undefined) continue;
    entities.set(type.name, { kind: field.name, codeField: argument.name });
  }
  return entities;
}

// Private: a page (`items`, `hasNextPage`) or a Relay edge (`node`, `cursor`): its entities are
// named by the list.
function isListItems(type: GraphQLObjectType): boolean {
  const fields = type.getFields();
  return (fields.items !== undefined && fields.hasNextPage !== undefined) || (fields.node !== undefined && fields.cursor !== undefined);
}

// Private: a lookup names the code asked for at once: no promise to wait on.
function namingAsked(field: GraphQLField<unknown, GatewayContext>, { kind, codeField }: EntityTag): GraphQLFieldResolver<unknown, GatewayContext> {
  const resolve = field.resolve ?? defaultFieldResolver;
  return (source, args: Record<string, unknown>, context, info) => {
    const code = args[codeField];
    if (typeof code === 'string') context.scope.tag(kind, code);
    return resolve(source, args, context, info);
  };
}

// Private: names what the field resolves to: a model, a list of them, or a promise of either.
function namingResolved(field: GraphQLField<unknown, GatewayContext>, entity: EntityTag): GraphQLFieldResolver<unknown, GatewayContext> {
  const resolve = field.resolve ?? defaultFieldResolver;
  return (source, args, context, info) => {
    const value: unknown = resolve(source, args, context, info);
    if (value instanceof Promise) return value.then((resolved: unknown) => named(resolved, entity, context));
    return named(value, entity, context);
  };
}

// Private: `value`, once each model in it is named.
function named<T>(value: T, { kind, codeField }: EntityTag, { scope }: GatewayContext): T {
  if (Array.isArray(value)) {
    for (const model of value) nameModel(model, kind, codeField, scope);
  } else nameModel(value, kind, codeField, scope);
  return value;
}

function nameModel(model: unknown, kind: string, codeField: string, scope: GatewayContext['scope']): void {
  if (typeof model !== 'object' || model === null) return;
  const code = (model as Record<string, unknown>)[codeField];
  if (typeof code === 'string') scope.tag(kind, code);
}
