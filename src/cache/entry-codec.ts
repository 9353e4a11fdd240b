/**
 * A cache entry in Redis: 0x01 + JSON, or 0x02 + raw-deflated JSON, `{"t": loadedAt (wall ms),
 * "l": ttlMs, "v": value, "m": 1 if a Map}`. Anything else decodes to `undefined`: load afresh.
 */
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';

export interface StoredEntry {
  value: unknown;
  /** Wall-clock load time, ms since the epoch. */
  loadedAt: number;
  ttlMs: number;
}

const PLAIN = 0x01;
const DEFLATED = 0x02;
/** Smaller entries are stored as they are: deflating them saves little. */
const COMPRESS_FROM_BYTES = 1024;
/** A deflated value inflating beyond this is not ours (or is a bomb): it is ignored. */
const MAX_INFLATED_BYTES = 64 * 1024 * 1024;

/** The bytes to store. Synchronous, so the write is on the wire before its request answers. */
export function encodeEntry(entry: StoredEntry): Buffer {
  const isMap = entry.value instanceof Map;
  const value = isMap ? [...(entry.value as Map<unknown, unknown>)] : entry.value;
  const json = Buffer.from(JSON.stringify({ t: entry.loadedAt, l: entry.ttlMs, v: value, ...(isMap ? { m: 1 } : {}) }), 'utf8');
  if (json.length < COMPRESS_FROM_BYTES) return Buffer.concat([Buffer.of(PLAIN), json]);
  return Buffer.concat([Buffer.of(DEFLATED), deflateRawSync(json, { level: constants.Z_BEST_SPEED })]);
}

/** The entry in `bytes`, or `undefined` when they are not an entry this version wrote. */
export function decodeEntry(bytes: Buffer): StoredEntry | undefined {
  try {
    const body = bytes.subarray(1);
    if (bytes[0] === PLAIN) return fromJson(body);
    if (bytes[0] === DEFLATED) return fromJson(inflateRawSync(body, { maxOutputLength: MAX_INFLATED_BYTES }));
    return undefined;
  } catch {
    return undefined;
  }
}

// Private: the entry in a JSON body, checked for the fields this version writes.
function fromJson(json: Buffer): StoredEntry | undefined {
  const parsed: unknown = JSON.parse(json.toString('utf8'));
  if (typeof parsed !== 'object' || parsed === null || !('v' in parsed)) return undefined;
  const { t, l, v, m } = parsed as { t?: unknown; l?: unknown; v: unknown; m?: unknown };
  if (!isTime(t) || !isTime(l) || l === 0) return undefined;
  if (m === undefined) return { value: v, loadedAt: t, ttlMs: l };
  if (m !== 1 || !Array.isArray(v) || !v.every((pair) => Array.isArray(pair) && pair.length === 2)) return undefined;
  return { value: new Map(v as [unknown, unknown][]), loadedAt: t, ttlMs: l };
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
