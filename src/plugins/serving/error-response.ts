/**
 * A refusal before GraphQL runs (401, 429), shaped like a GraphQL response so clients read it
 * the way they read every other error: `{ errors: [{ message, extensions: { code } }] }`.
 */
import type { FetchAPI } from 'graphql-yoga';

export function errorResponse(
  fetchAPI: FetchAPI,
  status: number,
  error: { message: string; code: string },
  headers: Record<string, string> = {},
): Response {
  const body = { errors: [{ message: error.message, extensions: { code: error.code } }] };
  return fetchAPI.Response.json(body, { status, headers });
}
