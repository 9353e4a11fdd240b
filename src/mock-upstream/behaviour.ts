/**
 * The upstream's undocumented choices (statuses, page caps, not-found answers, the token endpoint)
 * as switches, so the gateway meets every plausible pick; the next request sees a change.
 */
export interface Behaviour {
  /** HTTP status of error envelopes (a missing or unknown token is always 401). Default 200. */
  errorStatus: number;
  /** `pageSize` is silently capped to this many records; `total` is unaffected. Default 50. */
  maxPageSize: number;
  /** Unknown code: `result: null`, `result: {}`, or the envelope `{code: 404, msg: 'data not found'}`. Default `'null'`. */
  notFound: 'null' | 'empty' | 'error';
  /** Token answer: RFC 6749 JSON (`'plain'`), or it and failures in the usual envelopes (`'envelope'`). Default `'plain'`. */
  tokenStyle: 'plain' | 'envelope';
  /** Whether the token answer carries `expires_in` (seconds). Default true. */
  tokenExpiresIn: boolean;
  /** Serve declared numbers (`state`, `stock`, prices, `ipId`, `gradeType`, city `id`) as decimal strings. Default false. */
  numbersAsStrings: boolean;
  /** Paths answered 404 `Not Found`, as if not deployed (exact path, no query). Default `[]`. */
  missingPaths: string[];
}

/** A fresh copy of the defaults, merged with `overrides`. */
export function createBehaviour(overrides: Partial<Behaviour> = {}): Behaviour {
  return {
    errorStatus: 200,
    maxPageSize: 50,
    notFound: 'null',
    tokenStyle: 'plain',
    tokenExpiresIn: true,
    numbersAsStrings: false,
    ...overrides,
    missingPaths: [...(overrides.missingPaths ?? [])],
  };
}
