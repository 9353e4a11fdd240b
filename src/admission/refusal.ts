/**
 * What every admission check answers: admitted (as its client), or refused with a registry code,
 * status and headers. Door-neutral, so every door answers the same check with the same code.
 */
import type { GraphQLError } from 'graphql';
import { ERRORS, type ErrorCode, type Refusal } from '../base/errors.js';
import { coded } from '../base/graph-errors.js';

/** An admitted request's client: `key:<fingerprint>` when it presented a valid API key, else undefined. */
export interface Admitted {
  client: string | undefined;
}

export type { Refusal };

/** A refusal with `code`, the registry's status, and `message` or the registry's. */
export function refusal(code: ErrorCode, message: string = ERRORS[code].message, headers?: Record<string, string>): Refusal {
  return { code, status: ERRORS[code].status, message, ...(headers && { headers }) };
}

/** Whether a check's answer refuses. */
export function isRefusal(answer: unknown): answer is Refusal {
  return typeof answer === 'object' && answer !== null && 'code' in answer;
}

/** The GraphQL error of a refusal: yoga answers it with its status and headers; WebSocket sends it without them. */
export function refusalError({ code, status, message, headers }: Refusal): GraphQLError {
  return coded(code, message, { status, ...(headers && { headers }) });
}
