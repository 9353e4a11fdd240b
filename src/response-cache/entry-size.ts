/**
 * What an answer in the response cache costs in memory, as its byte budget
 * (`RESPONSE_CACHE_MAX_BYTES`) counts it: not only its bytes, but everything it keeps alive.
 *
 * - Its body and each compressed form, its key and ETag, and a fixed price for the rest: the
 *   entry object and its times, the body's typed array and buffer, the LRU's own slots.
 * - Each tag three times, as the tag list, the `Surrogate-Key` and the `Cache-Tag` headers made
 *   from it (request/tags.ts keeps them with the list), and a fixed price per tag: its string, its
 *   place in the list and its place in the tag index (tag-index.ts). A tag carried by several
 *   answers also costs the index a set, which the index counts itself (`TagIndex.bytes`).
 *
 * The prices are the heap after full collections (`process.memoryUsage`, heap and buffers), over
 * 20,000 answers of 157 bytes with 0, 15 or 30 tags of 20 or 72 characters, carried by one answer
 * each, two or all, and with 0 to 2 compressed forms; rounded up.
 */

/** What an entry keeps besides its bytes, key, ETag and tags (607 bytes measured). */
const ENTRY_OVERHEAD_BYTES = 640;
/** What each tag keeps besides its characters three times (83 bytes measured). */
const TAG_OVERHEAD_BYTES = 96;
/** What each compressed form keeps besides its bytes: its typed array, buffer and place in the map (217 bytes measured). */
const FORM_OVERHEAD_BYTES = 224;
/** The map of an entry's compressed forms, once it has one (196 bytes measured). */
const FORMS_MAP_BYTES = 200;

/** The parts of an entry its size is made of. */
export interface SizedEntry {
  body: Uint8Array;
  etag: string;
  tags?: readonly string[];
  encodings?: Map<string, Uint8Array>;
}

/** The bytes `entry`, stored under `key`, is counted for. */
export function entrySize(entry: SizedEntry, key: string): number {
  let size = entry.body.byteLength + key.length + entry.etag.length + ENTRY_OVERHEAD_BYTES;
  if (entry.encodings !== undefined && entry.encodings.size > 0) size += FORMS_MAP_BYTES;
  for (const form of entry.encodings?.values() ?? []) size += form.byteLength + FORM_OVERHEAD_BYTES;
  for (const tag of entry.tags ?? []) size += 3 * tag.length + TAG_OVERHEAD_BYTES;
  return size;
}
