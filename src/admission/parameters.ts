/**
 * Bounds on the query text (`MAX_QUERY_BYTES`) and the variables (`MAX_VARIABLES_BYTES`, as JSON):
 * comments and unused variables cost no tokens, so without these a huge one would be parsed,
 * cached and keyed. Checked before anything else reads the parameters: a refusal (413) costs no parse.
 */
import { refusal, type Refusal } from './refusal.js';

export interface ParameterLimits {
  /** The longest query text, in UTF-8 bytes. */
  maxQueryBytes: number;
  /** The largest variables object, in bytes of JSON. */
  maxVariablesBytes: number;
}

/** The refusal of parameters over a limit (the query's first), or undefined. */
export function parameterRefusal(limits: ParameterLimits, query: unknown, variables: unknown): Refusal | undefined {
  if (queryTooLarge(limits, query)) return refusal('QUERY_TOO_LARGE', `The query exceeds ${limits.maxQueryBytes} bytes`);
  if (variablesTooLarge(limits, variables)) return refusal('VARIABLES_TOO_LARGE', `The variables exceed ${limits.maxVariablesBytes} bytes`);
  return undefined;
}

// Private: a UTF-8 byte is at most one UTF-16 unit, so only a long text needs counting.
function queryTooLarge({ maxQueryBytes }: ParameterLimits, query: unknown): boolean {
  return typeof query === 'string' && query.length > maxQueryBytes / 3 && Buffer.byteLength(query) > maxQueryBytes;
}

function variablesTooLarge({ maxVariablesBytes }: ParameterLimits, variables: unknown): boolean {
  return variables !== undefined && variables !== null && jsonBytes(variables) > maxVariablesBytes;
}

// Private: variables arrive parsed (JSON bodies, WebSocket) or as JSON text (GET, forms).
function jsonBytes(variables: unknown): number {
  const text = typeof variables === 'string' ? variables : JSON.stringify(variables);
  return typeof text === 'string' ? Buffer.byteLength(text) : 0;
}
