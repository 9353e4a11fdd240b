/**
 * From each tag to the keys of the answers stored with it, so a purge finds them without reading
 * every entry. A tag of one answer keeps its key, not a set of one; sets are counted in `bytes`.
 */

/** What a set of keys keeps besides the places its keys are counted for. */
const SET_BYTES = 160;

export interface TagIndex {
  add(key: string, tags: readonly string[] | undefined): void;
  remove(key: string, tags: readonly string[] | undefined): void;
  /** The keys stored with any of `tags`. */
  keysOf(tags: readonly string[]): Set<string>;
  readonly bytes: number;
}

export function createTagIndex(): TagIndex {
  const keys = new Map<string, string | Set<string>>();
  let sets = 0;
  return {
    get bytes() {
      return sets * SET_BYTES;
    },
    add(key, tags) {
      for (const tag of tags ?? []) {
        const held = keys.get(tag);
        if (held === undefined || held === key) {
          keys.set(tag, key);
        } else if (typeof held === 'string') {
          keys.set(tag, new Set([held, key]));
          sets += 1;
        } else {
          held.add(key);
        }
      }
    },
    remove(key, tags) {
      for (const tag of tags ?? []) {
        const held = keys.get(tag);
        if (held === key) {
          keys.delete(tag);
        } else if (typeof held !== 'string' && held?.delete(key) && held.size === 1) {
          keys.set(tag, held.values().next().value!);
          sets -= 1;
        }
      }
    },
    keysOf(tags) {
      const found = new Set<string>();
      for (const tag of tags) {
        const held = keys.get(tag);
        if (typeof held === 'string') found.add(held);
        else for (const key of held ?? []) found.add(key);
      }
      return found;
    },
  };
}
