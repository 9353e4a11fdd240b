/**
 * What an answer in the response cache costs in memory, as its byte budget counts it: everything
 * it keeps alive, not only its bytes. Each tag counts three times (the list and the two tag
 * headers made from it); the fixed prices are measured heap sizes, rounded up.
 */

/** What an entry keeps besides its bytes, key, ETag and tags. */
const ENTRY_OVERHEAD_BYTES = 640;
/** What each tag keeps besides its characters three times. */
const TAG_OVERHEAD_BYTES = 96;
/** What each compressed form keeps besides its bytes. */
const FORM_OVERHEAD_BYTES = 224;
/** The map of an entry's compressed forms, once it has one. */
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
