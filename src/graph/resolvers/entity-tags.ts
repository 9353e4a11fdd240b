/**
 * An answer's tags from what it shows (docs/http-caching.md, "Purging"): each field that hands out an entity
 * names it on the scope, whatever cache level its data came from, derived once from the schema so
 * that no resolver has to remember to. Entity types are those Query looks up by one code
 * (`site(code:)` tags `site:<code>`); a lookup names the code asked for, found or not, so a purge
 * reaches "not found" answers; list items are named by their list. Codes are read from the model,
 * never the answer, which need not select them.
 */
import {
  defaultFieldResolver, getNamedType, getNullableType, isObjectType, type GraphQLField, type GraphQLFieldResolver,
  type GraphQLObjectType, type GraphQLSchema,
} from 'graphql';
import type { GatewayContext } from '../context.js';

/** Wraps, in place, the resolver of every field of `schema` that hands out an entity. Returns `schema`. */
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

// Private: the entity types by name, from Query's lookups by one argument named as a field of the type.
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

// Private: a page or a Relay edge, whose entities are named by the list.
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
