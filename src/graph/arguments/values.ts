/**
 * The rules for arguments: each checks one kind and returns it ready to use, or throws
 * `BAD_USER_INPUT` naming the argument, its range and a bounded echo of the value.
 */
import type { GraphQLError } from 'graphql';
import { coded } from '../../base/graph-errors.js';
import { fold } from '../../catalog/catalog.js';
import type { TimeReader } from '../../catalog/opening-hours.js';
import { decodeId, type NodeType } from '../ids.js';

/** Codes longer than this are not codes; they are refused before reaching the upstream. */
export const MAX_CODE_LENGTH = 128;
/** Global ids longer than this are not ours: a point's id of two longest codes is about half of it. */
export const MAX_ID_LENGTH = 2048;
/** Characters of a client's value an error message repeats at most. */
const ECHO_LENGTH = 64;

export function badUserInput(message: string): GraphQLError {
  return coded('BAD_USER_INPUT', message);
}

/** A client's value as an error message shows it: strings quoted, cut at `ECHO_LENGTH` characters. */
export function echo(value: unknown): string {
  const text = typeof value === 'string' || typeof value === 'number' ? String(value) : String(JSON.stringify(value) ?? value);
  const quote = (part: string) => (typeof value === 'string' ? JSON.stringify(part) : part);
  if (text.length <= ECHO_LENGTH) return quote(text);
  return `${quote(text.slice(0, ECHO_LENGTH))}… (${text.length} characters)`;
}

/** Validates `page` and `pageSize` (nullable in the schema, defaulted there). */
export function pageArgs(
  args: { page?: number | null; pageSize?: number | null },
  maxPageSize: number,
): { page: number; pageSize: number } {
  const page = args.page ?? 1;
  const pageSize = args.pageSize ?? 10;
  if (page < 1) throw badUserInput(`page must be 1 or more, but got: ${echo(page)}`);
  if (pageSize < 1 || pageSize > maxPageSize) {
    throw badUserInput(`pageSize must be from 1 to ${maxPageSize}, but got: ${echo(pageSize)}`);
  }
  return { page, pageSize };
}

/** A trimmed, non-empty code of reasonable length. */
export function codeArg(name: string, value: string): string {
  const code = value.trim();
  if (code === '') throw badUserInput(`${name} must not be empty`);
  if (code.length > MAX_CODE_LENGTH) {
    throw badUserInput(`${name} must be at most ${MAX_CODE_LENGTH} characters, but got: ${echo(code)}`);
  }
  return code;
}

/** A list of 1 to `max` codes, each checked like any code, without repeats. */
export function codesArg(name: string, values: readonly string[], max: number): Set<string> {
  if (values.length === 0 || values.length > max) throw badUserInput(`${name} must name 1 to ${max} codes, but got ${values.length}`);
  return new Set(values.map((value) => codeArg(name, value)));
}

/** A stock threshold: 0 to 2^31 − 1 items. */
export function thresholdArg(threshold: number): number {
  if (threshold < 0) throw badUserInput(`threshold must be 0 or more, but got: ${echo(threshold)}`);
  return threshold;
}

/** An optional code: absent stays absent; present, it is checked like any code. */
export function optionalCodeArg(name: string, value: string | null | undefined): string | undefined {
  return value === null || value === undefined ? undefined : codeArg(name, value);
}

/** What each key of a global id is, by type, for the messages (unnamed: `code`). */
const ID_KEY_NAMES: Partial<Record<NodeType, readonly string[]>> = {
  City: ['city code'], Site: ['site code'], Point: ['site code', 'point code'], Product: ['goods code'],
};

/** A global id (`Query.node`): one of ours, whose codes pass the rules of `codeArg`. */
export function nodeIdArg(id: string): { type: NodeType; keys: string[] } {
  if (id.length > MAX_ID_LENGTH) throw badUserInput(`id must be at most ${MAX_ID_LENGTH} characters, but got: ${echo(id)}`);
  const decoded = decodeId(id);
  if (decoded === null) throw badUserInput(`id is not a valid global id, but got: ${echo(id)}`);
  const names = ID_KEY_NAMES[decoded.type] ?? [];
  return { type: decoded.type, keys: decoded.keys.map((key, i) => codeArg(`id's ${names[i] ?? 'code'}`, key)) };
}

/** The largest search radius, in km: a country, not a planet. */
const MAX_RADIUS_KM = 1000;

/** A latitude and longitude in decimal degrees. */
export function geoArgs(lat: number, lng: number, prefix = ''): { lat: number; lng: number } {
  if (!Number.isFinite(lat) || lat < -90 || lat > 90) throw badUserInput(`${prefix}lat must be from -90 to 90, but got: ${echo(lat)}`);
  if (!Number.isFinite(lng) || lng < -180 || lng > 180) throw badUserInput(`${prefix}lng must be from -180 to 180, but got: ${echo(lng)}`);
  return { lat, lng };
}

/** A search radius in km, more than 0 and at most `MAX_RADIUS_KM`. */
export function radiusArg(radiusKm: number): number {
  if (!Number.isFinite(radiusKm) || radiusKm <= 0 || radiusKm > MAX_RADIUS_KM) {
    throw badUserInput(`radiusKm must be more than 0 and at most ${MAX_RADIUS_KM}, but got: ${echo(radiusKm)}`);
  }
  return radiusKm;
}

/** How many results at most: 1 to `max`. */
export function firstArg(first: number | null | undefined, fallback: number, max: number): number {
  const value = first ?? fallback;
  if (value < 1 || value > max) throw badUserInput(`first must be from 1 to ${max}, but got: ${echo(value)}`);
  return value;
}

/** Search text longer than this, as given or folded, is refused: no name is near it. */
export const MAX_TEXT_LENGTH = 1000;

/**
 * Optional search text, trimmed, at most `MAX_TEXT_LENGTH` characters also once folded (one
 * character can fold to many), since search compares folded text. Empty means no filter.
 */
export function textArg(name: string, value: string | null | undefined): string | undefined {
  const text = value?.trim() ?? '';
  if (text.length > MAX_TEXT_LENGTH) throw badUserInput(`${name} must be at most ${MAX_TEXT_LENGTH} characters, but got: ${echo(text)}`);
  const folded = fold(text).length;
  if (folded > MAX_TEXT_LENGTH) {
    throw badUserInput(`${name} must be at most ${MAX_TEXT_LENGTH} characters once folded as search compares it (compatibility forms taken apart), but it folds to ${folded}: ${echo(text)}`);
  }
  return text === '' ? undefined : text;
}

/** A time of day (seconds since midnight) from `HH:MM[:SS]` or an ISO 8601 date-time. */
export function timeArg(name: string, value: string, read: (text: string) => number | undefined): number {
  const time = value.length <= MAX_CODE_LENGTH ? read(value) : undefined;
  if (time === undefined) {
    throw badUserInput(`${name} must be HH:MM, HH:MM:SS or an ISO 8601 date-time, but got: ${echo(value)}`);
  }
  return time;
}

/** An optional time of day: absent stays absent. */
export function optionalTimeArg(name: string, value: string | null | undefined, read: (text: string) => number | undefined): number | undefined {
  return value === null || value === undefined ? undefined : timeArg(name, value, read);
}

/** `Site.isOpen(at:)`: the time of day asked about, default now, in the sites' time zone. */
export function atArg(at: string | null | undefined, siteTime: TimeReader): number {
  return at === null || at === undefined ? siteTime.now() : timeArg('at', at, siteTime.read);
}

/** Lanes `availability` returns at most. */
export const MAX_AVAILABILITY = 1000;

/** What `Product.availability` asks for, checked. */
export function availabilityArgs(args: {
  cityCode?: string | null; near?: { lat: number; lng: number } | null; radiusKm?: number | null;
  inStockOnly?: boolean | null; enabledOnly?: boolean | null; first?: number | null;
}) {
  const near = args.near ? geoArgs(args.near.lat, args.near.lng, 'near.') : undefined;
  const radiusKm = args.radiusKm === null || args.radiusKm === undefined ? undefined : radiusArg(args.radiusKm);
  if (radiusKm !== undefined && near === undefined) throw badUserInput('radiusKm needs near: a radius around nothing');
  return {
    cityCode: optionalCodeArg('cityCode', args.cityCode),
    near,
    radiusKm,
    inStockOnly: args.inStockOnly ?? true,
    enabledOnly: args.enabledOnly ?? true,
    first: firstArg(args.first, 50, MAX_AVAILABILITY),
  };
}
