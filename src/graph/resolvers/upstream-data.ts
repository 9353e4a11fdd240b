/**
 * Whole numbers from the upstream that the schema cannot carry (out of GraphQL's 32-bit `Int`, or
 * a negative stock) were turned into `null` by normalisation, which listed the field in the
 * record's `invalid`. Such a field is answered with an `UPSTREAM_DATA_INVALID` error on that field
 * alone: the client sees that the upstream's value was unusable, not that none was given, and
 * the rest of the record still serves.
 */
import { coded } from '../../base/graph-errors.js';
import type { InvalidFields } from '../../upstream/records.js';

/** `record[field]`, or an `UPSTREAM_DATA_INVALID` error when the upstream's value was out of range. */
export function checkedInt<R extends InvalidFields, K extends keyof R & string>(record: R, field: K): R[K] {
  if (record.invalid?.includes(field)) {
    throw coded('UPSTREAM_DATA_INVALID', `The upstream sent a value of ${field} out of range`);
  }
  return record[field];
}
