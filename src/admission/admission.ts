/**
 * The one admission: every check a request passes before GraphQL runs, made once from the
 * configuration and called by every door in the same order, so no two doors can disagree:
 * path → API key → rate limit → CSRF → media type → parameter limits → persisted operations.
 */
import type { PersistedOperations } from '../base/config/persisted-operations.js';
import { createKeyCheck, type HeaderReader } from './api-key.js';
import { csrfRefusal } from './csrf.js';
import { parameterRefusal, type ParameterLimits } from './parameters.js';
import { allowListed, type PersistedParams } from './persisted.js';
import { createRateLimit, type RateLimit, type RateLimitOptions } from './rate-limit.js';
import type { Admitted, Refusal } from './refusal.js';

export interface AdmissionConfig extends ParameterLimits {
  /** `GATEWAY_API_KEYS`: none leaves the gateway open. */
  apiKeys: readonly string[];
  /** `RATE_LIMIT_PER_MINUTE`: 0 is off. */
  rateLimitPerMinute: number;
  /** `CSRF_PREVENTION`. */
  csrfPrevention: boolean;
  /** `PERSISTED_OPERATIONS_FILE`: allow-list mode when set. */
  persistedOperations?: PersistedOperations | undefined;
}

export interface Admission {
  /** The client by its API key, or its refusal (401); everyone is admitted without keys. */
  key(headers: HeaderReader): Admitted | Refusal;
  readonly keys: boolean;
  rate: RateLimit;
  /** The refusal of a simple request without a CSRF header, when on (HTTP only). */
  csrf(headers: HeaderReader): Refusal | undefined;
  /** In allow-list mode, the listed document asked for or the refusal; undefined otherwise. */
  persisted(params: PersistedParams): { query: string } | Refusal | undefined;
  /** Swaps in a reloaded list in one assignment: a request reads one list or the other, never a mix. */
  replaceList(list: PersistedOperations): void;
  /** The refusal of parameters over the size limits. */
  parameters(query: unknown, variables: unknown): Refusal | undefined;
  readonly limits: ParameterLimits;
}

export function createAdmission(config: AdmissionConfig, rateLimit: RateLimitOptions = {}): Admission {
  const limits = { maxQueryBytes: config.maxQueryBytes, maxVariablesBytes: config.maxVariablesBytes };
  let list = config.persistedOperations;
  return {
    key: createKeyCheck(config.apiKeys),
    keys: config.apiKeys.length > 0,
    rate: createRateLimit(config.rateLimitPerMinute, rateLimit),
    csrf: config.csrfPrevention ? csrfRefusal : () => undefined,
    persisted: (params) => (list === undefined ? undefined : allowListed(list, params)),
    replaceList(next) {
      if (list === undefined) throw new Error('replaceList: the gateway was started without PERSISTED_OPERATIONS_FILE');
      list = next;
    },
    parameters: (query, variables) => parameterRefusal(limits, query, variables),
    limits,
  };
}
