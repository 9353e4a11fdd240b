/**
 * A request's document on the GraphQL road: parsed and validated by yoga's enveloped steps (their
 * caches and every parse and validation hook), or the errors yoga answers for it. A document once
 * valid is known by its object (yoga's parser cache keeps one per query text): the same text
 * validates the same way again, so a repeat skips the enveloped steps.
 */
import type { DocumentNode, ExecutionArgs, GraphQLError, GraphQLSchema } from 'graphql';
import type { YogaServerInstance } from 'graphql-yoga';
import { coded } from '../../base/graph-errors.js';
import { maskError } from '../../graph/mask-error.js';
import type { GraphQLParams } from './read.js';
import type { Initial } from './respond.js';

export interface Documents {
  /** The document of `params`, or the errors yoga answers for it. */
  documentFor(params: GraphQLParams, initial: Initial): DocumentNode | GraphQLError[];
  /** The schema yoga validated against (known once a document was valid). */
  schema(): GraphQLSchema;
}

/** What the GraphQL road calls of yoga's enveloped steps for one request. */
export interface Enveloped {
  schema: GraphQLSchema;
  parse(query: string): DocumentNode;
  validate(schema: GraphQLSchema, document: DocumentNode): readonly GraphQLError[];
  contextFactory(): unknown;
  execute(args: ExecutionArgs): unknown;
  subscribe(args: ExecutionArgs): unknown;
}

/** `parsed`: yoga's parsed documents by query text (its `parserAndValidationCache`). */
export function createDocuments(yoga: Pick<YogaServerInstance<object, object>, 'getEnveloped'>, parsed: { get(query: string): DocumentNode | undefined }): Documents {
  const valid = new WeakSet<DocumentNode>();
  let schema: GraphQLSchema | undefined;
  return {
    documentFor(params, initial) {
      const cached = parsed.get(params.query);
      if (cached !== undefined && valid.has(cached)) return cached;
      const enveloped = yoga.getEnveloped(initial as never) as unknown as Enveloped;
      const document = parsedOrErrors(enveloped, params.query);
      if (Array.isArray(document)) return document;
      const errors = enveloped.validate(enveloped.schema, document);
      if (errors.length > 0) return [...errors];
      schema = enveloped.schema;
      valid.add(document);
      return document;
    },
    schema: () => schema!,
  };
}

/** The error of a document without the one operation to run: several unnamed, or none of the name asked for. */
export function unresolved(): GraphQLError {
  return coded('OPERATION_RESOLUTION_FAILURE');
}

// Private: the document, or the error its parse threw (a syntax error, a refusal while parsing: the token limit), masked as yoga masks it.
function parsedOrErrors(enveloped: Enveloped, query: string): DocumentNode | GraphQLError[] {
  try {
    return enveloped.parse(query);
  } catch (error) {
    return [maskError(error) as GraphQLError];
  }
}
