/**
 * The shared cache's data a purge tag names (request/tags.ts, README "Purging"), from the table of
 * operations (upstream/operations.ts), so that a purge drops exactly what the next request must
 * load again:
 *
 * - `site:<code>`, `product:<code>`: the entity's detail entry (where lists prime it too) and, for
 *   a site, its city as list-with-points said it.
 * - `city:<code>`: the whole city list (its pages, its walk and the map by code): cities are held
 *   as one map built from the list's walk, so no entry is one city's alone.
 * - A list (`sites`, `products`, `cities`: a freshness class): every page and walk of the lists of
 *   that class, and the catalog index's walk of them (the index held in memory is rebuilt at its
 *   next refresh, `INDEX_REFRESH_S`; its answers state their age and are never stored). A list tag
 *   drops no entity entry: name the entities for that.
 *
 * An entity tag leaves the catalog index alone: refreshing it walks a whole list, hundreds of calls
 * for one corrected record.
 */
import { DETAILS, LISTS, type DetailKind } from '../upstream/operations.js';
import { siteCityKey } from './sources.js';

/** Entries by key, and kinds (`kindOfKey`: a key's prefix) whose every entry goes. */
export interface TaggedData {
  keys: string[];
  kinds: string[];
}

/** The lists the catalog index walks, under `index:<list>` (data/sources.ts `snapshot`). */
const INDEXED: readonly string[] = ['sitesWithPoints', 'products'];

export function dataOf(tags: readonly string[]): TaggedData {
  const keys = new Set<string>();
  const kinds = new Set<string>();
  for (const tag of tags) {
    const colon = tag.indexOf(':');
    const kind = colon === -1 ? tag : tag.slice(0, colon);
    const code = tag.slice(colon + 1);
    if (colon === -1 || kind === 'city') {
      for (const [list, operation] of Object.entries(LISTS)) {
        if (operation.freshness !== (colon === -1 ? kind : 'cities')) continue;
        kinds.add(list);
        if (INDEXED.includes(list)) keys.add(`index:${list}`);
      }
    } else if (Object.hasOwn(DETAILS, kind)) {
      keys.add(DETAILS[kind as DetailKind].key(code));
      if (kind === 'site') keys.add(siteCityKey(code));
    }
  }
  return { keys: [...keys], kinds: [...kinds] };
}
