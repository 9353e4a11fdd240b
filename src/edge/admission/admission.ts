/**
 * The one admission: every check a request passes before GraphQL runs, made once from the
 * configuration and called by every door (yoga's plugins in plugins/protection/, the lean path
 * edge/lean/lean-path.ts, the WebSocket door edge/ws/operations.ts), so a guard is written once
 * and no two doors can disagree on it. The order is the same at every door:
 *
 *   path (route.ts) → API key → rate limit → CSRF → media type (route.ts) → parameter limits →
 *   persisted operations
 *
 * then yoga's parse and validate (the query limits) and execution (argument checks, item limit,
 * upstream budget), which every door runs through yoga's enveloped functions.
 */
import type { PersistedOperations } from '../../base/config/persisted-operations.js';
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
  /** The client by its API key, or its refusal (`UNAUTHENTICATED`, 401); everyone is admitted without keys. */
  key(headers: HeaderReader): Admitted | Refusal;
  /** Whether keys are set (without them `key` admits everyone as nobody). */
  readonly keys: boolean;
  /** The rate limit's buckets, the same for every door. */
  rate: RateLimit;
  /** With `CSRF_PREVENTION`, the refusal of a simple request without a CSRF header (HTTP only). */
  csrf(headers: HeaderReader): Refusal | undefined;
  /** In allow-list mode, the listed document asked for or the refusal; undefined otherwise (anything may run). */
  persisted(params: PersistedParams): { query: string } | Refusal | undefined;
  /**
   * In allow-list mode, puts `list` in the old one's place (a reload). One assignment: a request
   * reads one list or the other, never a mix, and one already admitted keeps its document.
   */
  replaceList(list: PersistedOperations): void;
  /** The refusal of parameters over `MAX_QUERY_BYTES` or `MAX_VARIABLES_BYTES`. */
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
