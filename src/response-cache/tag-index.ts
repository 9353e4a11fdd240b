/**
 * The response cache's index from each tag (request/tags.ts) to the keys of the answers stored
 * with it, so that a purge by tag finds them without reading every entry. The store adds an entry
 * once it is set and removes it when the LRU lets it go (evicted, expired, replaced or purged), so
 * the index never holds more keys than the cache holds answers.
 */
export interface TagIndex {
  add(key: string, tags: readonly string[] | undefined): void;
  remove(key: string, tags: readonly string[] | undefined): void;
  /** The keys stored with any of `tags`. */
  keysOf(tags: readonly string[]): Set<string>;
}

export function createTagIndex(): TagIndex {
  const keys = new Map<string, Set<string>>();
  return {
    add(key, tags) {
      for (const tag of tags ?? []) {
        let set = keys.get(tag);
        if (set === undefined) keys.set(tag, (set = new Set()));
        set.add(key);
      }
    },
    remove(key, tags) {
      for (const tag of tags ?? []) {
        const set = keys.get(tag);
        if (set?.delete(key) && set.size === 0) keys.delete(tag);
      }
    },
    keysOf(tags) {
      const found = new Set<string>();
      for (const tag of tags) for (const key of keys.get(tag) ?? []) found.add(key);
      return found;
    },
  };
}
