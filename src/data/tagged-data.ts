/**
 * The shared cache's data a purge tag names, so a purge drops exactly what must load again: an
 * entity's detail entry; for a list, every page and walk of its freshness class. A city tag drops
 * every copy of city names, since cities live in one map; entity tags leave the catalog index alone
 * (refreshing it walks a whole list).
 */
import { kindOfKey } from '../cache/cache.js';
import { CHILD_LISTS, DETAILS, LISTS, type DetailKind, type ListKind } from '../upstream/operations.js';
import { siteCityKey } from './sources.js';

/** Entries by key, and kinds (`kindOfKey`: a key's prefix) whose every entry goes. */
export interface TaggedData {
  keys: string[];
  kinds: string[];
}

/** The lists the catalog index walks, under `index:<list>`. */
const INDEXED: readonly string[] = ['sitesWithPoints', 'products'];

/** The list whose sites say their city's name, and the entries its pages prime with it. */
const NAMES_CITIES: ListKind = 'sitesWithPoints';
const CITY_COPIES = [NAMES_CITIES, kindOfKey(DETAILS[LISTS[NAMES_CITIES].primes!].key('')), kindOfKey(siteCityKey(''))];

/** The keys and kinds of shared data `tags` name. */
export function dataOf(tags: readonly string[]): TaggedData {
  const keys = new Set<string>();
  const kinds = new Set<string>();
  for (const tag of tags) {
    const colon = tag.indexOf(':');
    const kind = colon === -1 ? tag : tag.slice(0, colon);
    const code = tag.slice(colon + 1);
    if (colon === -1 || kind === 'city') {
      const freshness = colon === -1 ? kind : 'cities';
      for (const [list, operation] of Object.entries({ ...LISTS, ...CHILD_LISTS })) {
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
