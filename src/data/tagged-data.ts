/**
 * The shared cache's data a purge tag names (request/tags.ts, README "Purging"), from the table of
 * operations (upstream/operations.ts), so that a purge drops exactly what the next request must
 * load again:
 *
 * - `site:<code>`, `product:<code>`: the entity's detail entry (where lists prime it too) and, for
 *   a site, its city as list-with-points said it.
 * - `city:<code>`, as `cities`: the whole city list (its pages, its walk and the map by code):
 *   cities are held as one map built from the list's walk, so no entry is one city's alone. And
 *   every copy of a city's name list-with-points made: its pages and walk (each site says its
 *   city), the site entries they primed, the site-to-city map and the catalog index's walk. A
 *   corrected name would otherwise come back from those, under the answers the purge dropped.
 * - A list (`sites`, `products`, `cities`: a freshness class): every page and walk of the lists of
 *   that class, and the catalog index's walk of them (the index held in memory is rebuilt at its
 *   next refresh, `INDEX_REFRESH_S`; its answers state their age and are never stored). A list tag
 *   drops no entity entry but a city's copies (above): name the entities for that.
 *
 * A site or product tag leaves the catalog index alone: refreshing it walks a whole list, hundreds
 * of calls for one corrected record.
 */
import { kindOfKey } from '../cache/cache.js';
import { DETAILS, LISTS, type DetailKind, type ListKind } from '../upstream/operations.js';
import { siteCityKey } from './sources.js';

/** Entries by key, and kinds (`kindOfKey`: a key's prefix) whose every entry goes. */
export interface TaggedData {
  keys: string[];
  kinds: string[];
}

/** The lists the catalog index walks, under `index:<list>` (data/sources.ts `snapshot`). */
const INDEXED: readonly string[] = ['sitesWithPoints', 'products'];

/** The list whose sites say their city's name, and the entries its pages prime with it. */
const NAMES_CITIES: ListKind = 'sitesWithPoints';
const CITY_COPIES = [NAMES_CITIES, kindOfKey(DETAILS[LISTS[NAMES_CITIES].primes!].key('')), kindOfKey(siteCityKey(''))];

export function dataOf(tags: readonly string[]): TaggedData {
  const keys = new Set<string>();
  const kinds = new Set<string>();
  for (const tag of tags) {
    const colon = tag.indexOf(':');
    const kind = colon === -1 ? tag : tag.slice(0, colon);
    const code = tag.slice(colon + 1);
    if (colon === -1 || kind === 'city') {
      const freshness = colon === -1 ? kind : 'cities';
      for (const [list, operation] of Object.entries(LISTS)) {
        if (operation.freshness !== freshness) continue;
        kinds.add(list);
        if (INDEXED.includes(list)) keys.add(`index:${list}`);
      }
      if (freshness === 'cities') {
        for (const copies of CITY_COPIES) kinds.add(copies);
        keys.add(`index:${NAMES_CITIES}`);
      }
    } else if (Object.hasOwn(DETAILS, kind)) {
      keys.add(DETAILS[kind as DetailKind].key(code));
      if (kind === 'site') keys.add(siteCityKey(code));
    }
  }
  return { keys: [...keys], kinds: [...kinds] };
}
