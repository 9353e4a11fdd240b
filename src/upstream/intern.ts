/**
 * One string for each text the upstream repeats across records: a product's name, code and
 * picture arrive once per lane holding it, a site's hours once per site, and every parse of an
 * answer makes fresh copies. Records keep the table's string instead, so the cached data holds
 * each such text once. The table is bounded in entries and in text length: past its size it
 * starts afresh (strings already shared stay shared), so an upstream with endless distinct texts
 * cannot grow it.
 */

/** Returns the table's string equal to `text`, keeping `text` when it has none. */
export interface Interner {
  (text: string): string;
  /** Texts in the table now. */
  readonly size: number;
}

/** Texts kept at most; past it the table starts afresh. */
export const TEXTS_KEPT = 32_768;
/** Longer texts are passed through: rarely repeated, and each would hold more memory. */
export const TEXT_MAX_LENGTH = 256;

/** A table of at most `max` texts (`TEXTS_KEPT` by default). */
export function createInterner(max: number = TEXTS_KEPT): Interner {
  const texts = boundedMap<string>(max);
  const intern = (text: string): string => {
    if (text.length > TEXT_MAX_LENGTH) return text;
    const kept = texts.get(text);
    if (kept !== undefined) return kept;
    texts.set(text, text);
    return text;
  };
  return Object.defineProperty(intern, 'size', { get: () => texts.size }) as Interner;
}

/** A Map of at most `max` entries: past it, it starts afresh. */
export interface BoundedMap<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  readonly size: number;
}

export function boundedMap<V>(max: number): BoundedMap<V> {
  let entries = new Map<string, V>();
  return {
    get: (key) => entries.get(key),
    set: (key, value) => {
      if (entries.size >= max) entries = new Map();
      entries.set(key, value);
    },
    get size() { return entries.size; },
  };
}
