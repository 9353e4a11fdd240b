/**
 * Bounds on what a request may ask the gateway to hold: the query text (`MAX_QUERY_BYTES`) and
 * the variables (`MAX_VARIABLES_BYTES`, as JSON), apart from the body limit. Comments and string
 * literals cost no tokens (`MAX_QUERY_TOKENS`), so without these a 900 KB comment, or 450 KB of
 * unused variables, would be parsed, cached and keyed like any small query. Checked on the
 * parameters yoga parsed, before anything else reads them: a refusal (`QUERY_TOO_LARGE`,
 * `VARIABLES_TOO_LARGE`, HTTP 413) costs no parse and no upstream call.
 */
import { createGraphQLError, type Plugin } from 'graphql-yoga';

export interface ParameterLimits {
  /** `MAX_QUERY_BYTES`: the longest query text, in UTF-8 bytes. */
  maxQueryBytes: number;
  /** `MAX_VARIABLES_BYTES`: the largest variables object, in bytes of JSON. */
  maxVariablesBytes: number;
}

export function useParameterLimits(limits: ParameterLimits): Plugin {
  return {
    onParams({ params }) {
      const { query, variables } = params as { query?: unknown; variables?: unknown };
      if (queryTooLarge(limits, query)) throw tooLarge(`The query exceeds ${limits.maxQueryBytes} bytes`, 'QUERY_TOO_LARGE');
      if (variablesTooLarge(limits, variables)) {
        throw tooLarge(`The variables exceed ${limits.maxVariablesBytes} bytes`, 'VARIABLES_TOO_LARGE');
      }
    },
  };
}

/** Whether parameters exceed a limit (the lean path hands such requests to yoga, which refuses them). */
export function parametersTooLarge(limits: ParameterLimits, query: unknown, variables: unknown): boolean {
  return queryTooLarge(limits, query) || variablesTooLarge(limits, variables);
}

// Private: a UTF-8 byte is at most one UTF-16 unit, so only a long text needs counting.
function queryTooLarge({ maxQueryBytes }: ParameterLimits, query: unknown): boolean {
  return typeof query === 'string' && query.length > maxQueryBytes / 3 && Buffer.byteLength(query) > maxQueryBytes;
}

function variablesTooLarge({ maxVariablesBytes }: ParameterLimits, variables: unknown): boolean {
  return variables !== undefined && variables !== null && jsonBytes(variables) > maxVariablesBytes;
}

// Private: variables arrive parsed (JSON bodies) or as JSON text (GET, forms).
function jsonBytes(variables: unknown): number {
  const text = typeof variables === 'string' ? variables : JSON.stringify(variables);
  return typeof text === 'string' ? Buffer.byteLength(text) : 0;
}

function tooLarge(message: string, code: string) {
  return createGraphQLError(message, { extensions: { code, http: { status: 413 } } });
}
