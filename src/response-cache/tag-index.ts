/**
 * The response cache's index from each tag (request/tags.ts) to the keys of the answers stored
 * with it, so that a purge by tag finds them without reading every entry. The store adds an entry
 * once it is set and removes it when the LRU lets it go (evicted, expired, replaced or purged), so
 * the index never holds more keys than the cache holds answers.
 *
 * A tag only one answer carries (an entity few ask for) keeps that answer's key itself, not a set
 * of one. The store counts each tag of an answer at one price (entry-size.ts), which covers its
 * place here; the sets of the tags several answers carry are counted here (`bytes`), and the
 * store keeps its entries and this together within its budget.
 */

/** What a set of keys keeps besides the places its keys are counted for (94 to 142 bytes measured: entry-size.ts). */
const SET_BYTES = 160;

export interface TagIndex {
  add(key: string, tags: readonly string[] | undefined): void;
  remove(key: string, tags: readonly string[] | undefined): void;
  /** The keys stored with any of `tags`. */
  keysOf(tags: readonly string[]): Set<string>;
  /** The bytes of the index's sets. */
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
