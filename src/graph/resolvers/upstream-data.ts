/** Upstream values normalisation found unusable: the field alone gets an error, the rest still serves. */
import { coded } from '../../base/graph-errors.js';
import type { InvalidFields } from '../../upstream/records.js';

/** `record[field]`, or an `UPSTREAM_DATA_INVALID` error when the upstream's value was out of range. */
export function checkedInt<R extends InvalidFields, K extends keyof R & string>(record: R, field: K): R[K] {
  if (record.invalid?.includes(field)) {
    throw coded('UPSTREAM_DATA_INVALID', `The upstream sent a value of ${field} out of range`);
  }
  return record[field];
}
