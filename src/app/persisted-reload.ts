/**
 * Reading the persisted documents file again on SIGHUP, so new operations are allowed without a
 * restart. The new list replaces the old in one assignment once checked whole; a bad file changes
 * nothing but a warning.
 */
import { rereadPersistedOperations, type PersistedOperations } from '../base/config/persisted-operations.js';
import type { Logger } from '../base/logger.js';
import type { Admission } from '../admission/admission.js';

/** What a reload did: the new list's size and format, or the problems that kept the old list. */
export type ReloadOutcome =
  | { reloaded: true; operations: number; format: PersistedOperations['format'] }
  | { reloaded: false; problems: readonly string[] };

const NAME = 'PERSISTED_OPERATIONS_FILE';

/** A reload of `list`'s file into `admission`; reloads asked for at once run one after the other, the last read wins. */
export function createPersistedReload(list: PersistedOperations | undefined, admission: Pick<Admission, 'replaceList'>, logger: Logger): () => Promise<ReloadOutcome> {
  let last: Promise<unknown> = Promise.resolve();
  const once = async (): Promise<ReloadOutcome> => {
    if (list === undefined) return { reloaded: false, problems: [`${NAME} is not set: there is no list to reload`] };
    const next = await rereadPersistedOperations(NAME, list);
    if (Array.isArray(next)) {
      logger.warn({ file: list.file, problems: next }, `persisted documents not reloaded, the old list stays: ${next.join('; ')}`);
      return { reloaded: false, problems: next };
    }
    admission.replaceList(next);
    logger.info({ file: next.file, format: next.format, operations: next.documents.size }, 'persisted documents reloaded');
    return { reloaded: true, operations: next.documents.size, format: next.format };
  };
  return () => {
    const outcome = last.then(once);
    last = outcome.catch(() => undefined);
    return outcome;
  };
}
