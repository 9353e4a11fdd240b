/**
 * Argument checks that run before any upstream call; failures are `BAD_USER_INPUT` errors that
 * echo the bad value.
 */
import { GraphQLError } from 'graphql';

/** Codes longer than this are not codes; they are refused before reaching the upstream. */
const MAX_CODE_LENGTH = 128;

export function badUserInput(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });
}

/** Validates `page` and `pageSize` (nullable in the schema, defaulted there). */
export function pageArgs(
  args: { page?: number | null; pageSize?: number | null },
  maxPageSize: number,
): { page: number; pageSize: number } {
  const page = args.page ?? 1;
  const pageSize = args.pageSize ?? 10;
  if (page < 1) throw badUserInput(`page must be 1 or more, but got: ${page}`);
  if (pageSize < 1 || pageSize > maxPageSize) {
    throw badUserInput(`pageSize must be from 1 to ${maxPageSize}, but got: ${pageSize}`);
  }
  return { page, pageSize };
}

/** A trimmed, non-empty code of reasonable length. */
export function codeArg(name: string, value: string): string {
  const code = value.trim();
  if (code === '') throw badUserInput(`${name} must not be empty`);
  if (code.length > MAX_CODE_LENGTH) throw badUserInput(`${name} must be at most ${MAX_CODE_LENGTH} characters`);
  return code;
}
