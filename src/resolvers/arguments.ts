/**
 * Argument checks that run before any upstream call; failures are `BAD_USER_INPUT` errors that
 * echo the bad value.
 */
import { GraphQLError } from 'graphql';
import type { TimeReader } from '../catalog/opening-hours.js';

/** Codes longer than this are not codes; they are refused before reaching the upstream. */
const MAX_CODE_LENGTH = 128;

export function badUserInput(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });
}

/** Validates `page` and `pageSize` (nullable in the schema, defaulted there). */
export function pageArgs(
  args: { page?: number | null; pageSize?: number | null },
  maxPageSize: number,
): { page: number; pageSize: number } {
  const page = args.page ?? 1;
  const pageSize = args.pageSize ?? 10;
  if (page < 1) throw badUserInput(`page must be 1 or more, but got: ${page}`);
  if (pageSize < 1 || pageSize > maxPageSize) {
    throw badUserInput(`pageSize must be from 1 to ${maxPageSize}, but got: ${pageSize}`);
  }
  return { page, pageSize };
}

/** A trimmed, non-empty code of reasonable length. */
export function codeArg(name: string, value: string): string {
  const code = value.trim();
  if (code === '') throw badUserInput(`${name} must not be empty`);
  if (code.length > MAX_CODE_LENGTH) throw badUserInput(`${name} must be at most ${MAX_CODE_LENGTH} characters`);
  return code;
}

/** The largest search radius, in km: a country, not a planet. */
const MAX_RADIUS_KM = 1000;

/** A latitude and longitude in decimal degrees. */
export function geoArgs(lat: number, lng: number, prefix = ''): { lat: number; lng: number } {
  if (!Number.isFinite(lat) || lat < -90 || lat > 90) throw badUserInput(`${prefix}lat must be from -90 to 90, but got: ${lat}`);
  if (!Number.isFinite(lng) || lng < -180 || lng > 180) throw badUserInput(`${prefix}lng must be from -180 to 180, but got: ${lng}`);
  return { lat, lng };
}

/** A search radius in km, more than 0 and at most `MAX_RADIUS_KM`. */
export function radiusArg(radiusKm: number): number {
  if (!Number.isFinite(radiusKm) || radiusKm <= 0 || radiusKm > MAX_RADIUS_KM) {
    throw badUserInput(`radiusKm must be more than 0 and at most ${MAX_RADIUS_KM}, but got: ${radiusKm}`);
  }
  return radiusKm;
}

/** How many results at most: 1 to `max`. */
export function firstArg(first: number | null | undefined, fallback: number, max: number): number {
  const value = first ?? fallback;
  if (value < 1 || value > max) throw badUserInput(`first must be from 1 to ${max}, but got: ${value}`);
  return value;
}

/** An optional code: absent stays absent; present, it is checked like any code. */
export function optionalCodeArg(name: string, value: string | null | undefined): string | undefined {
  return value === null || value === undefined ? undefined : codeArg(name, value);
}

/** Search text longer than this is refused: no name is near it. */
const MAX_TEXT_LENGTH = 1000;

/** Optional search text: trimmed, at most `MAX_TEXT_LENGTH` characters; empty means no filter. */
export function textArg(name: string, value: string | null | undefined): string | undefined {
  const text = value?.trim() ?? '';
  if (text.length > MAX_TEXT_LENGTH) throw badUserInput(`${name} must be at most ${MAX_TEXT_LENGTH} characters`);
  return text === '' ? undefined : text;
}

/** A time of day (seconds since midnight) from `HH:MM[:SS]` or an ISO 8601 date-time. */
export function timeArg(name: string, value: string, read: (text: string) => number | undefined): number {
  const time = value.length <= MAX_CODE_LENGTH ? read(value) : undefined;
  if (time === undefined) {
    throw badUserInput(`${name} must be HH:MM, HH:MM:SS or an ISO 8601 date-time, but got: ${JSON.stringify(value.slice(0, MAX_CODE_LENGTH))}`);
  }
  return time;
}

/** `Site.isOpen(at:)`: the time of day asked about, default now, in the sites' time zone. */
export function atArg(at: string | null | undefined, siteTime: TimeReader): number {
  return at === null || at === undefined ? siteTime.now() : timeArg('at', at, siteTime.read);
}

/** What `Product.availability` asks for, checked. */
export function availabilityArgs(args: {
  cityCode?: string | null; near?: { lat: number; lng: number } | null; radiusKm?: number | null;
  inStockOnly?: boolean | null; first?: number | null;
}) {
  const near = args.near ? geoArgs(args.near.lat, args.near.lng, 'near.') : undefined;
  const radiusKm = args.radiusKm === null || args.radiusKm === undefined ? undefined : radiusArg(args.radiusKm);
  if (radiusKm !== undefined && near === undefined) throw badUserInput('radiusKm needs near: a radius around nothing');
  return {
    cityCode: optionalCodeArg('cityCode', args.cityCode),
    near,
    radiusKm,
    inStockOnly: args.inStockOnly ?? true,
    first: firstArg(args.first, 50, MAX_AVAILABILITY),
  };
}

/** Lanes `availability` returns at most. */
const MAX_AVAILABILITY = 1000;
