/**
 * The upstream's undocumented choices, as switches. The description leaves HTTP statuses,
 * page-size limits, not-found answers and the token endpoint open; a real deployment picks one
 * answer for each, and the gateway must cope with every plausible pick. Tests flip these at run
 * time through `mock.behaviour`; the next request sees the change.
 */
export interface Behaviour {
  /**
   * HTTP status sent with error envelopes (`{code, msg, timestamp}`), e.g. 500, 503 or 401.
   * Does not apply to a missing or unknown token, which is always HTTP 401. Default 200.
   */
  errorStatus: number;
  /** `pageSize` is silently capped to this many records; `total` is unaffected. Default 50. */
  maxPageSize: number;
  /**
   * Answer for an unknown `siteCode` or `goodsCode`: success envelope with `result: null`
   * (`'null'`), with `result: {}` (`'empty'`), or the error envelope
   * `{code: 404, msg: 'data not found'}` (`'error'`). Default `'null'`.
   */
  notFound: 'null' | 'empty' | 'error';
  /**
   * Token endpoint answer: RFC 6749 JSON `{access_token, token_type, expires_in, scope?}`
   * (`'plain'`), or that object as the `result` of a success envelope, with failures as error
   * envelopes (`'envelope'`). Default `'plain'`.
   */
  tokenStyle: 'plain' | 'envelope';
  /** Whether the token answer carries `expires_in` (seconds). Default true. */
  tokenExpiresIn: boolean;
  /**
   * Serve declared numbers (`state`, `stock`, `guidePrice`, `costPrice`, `ipId`, `gradeType`,
   * city `id`) as decimal strings, as loosely typed backends do. Default false.
   */
  numbersAsStrings: boolean;
  /**
   * Paths answered with HTTP 404 and the text `Not Found`, as if that operation were not
   * deployed (e.g. `['/api/site/list']`). Exact path match, no query. Default `[]`.
   */
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
