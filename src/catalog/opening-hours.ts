/**
 * Opening hours: whether a site's `openTime`–`closeTime` include a time of day (seconds since
 * midnight, wall clock, in the sites' time zone). Open from `openTime` (included) to `closeTime`
 * (excluded); a closing time before the opening one passes midnight; equal times mean all day.
 */

import type { Clock } from '../base/clock.js';

const DAY_S = 86_400;
/** `HH:MM` or `HH:MM:SS`, 00:00 to 23:59:59 (24:00 accepted for "end of day"). */
const TIME_OF_DAY = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/;
/** An ISO 8601 date-time: `2026-11-21T14:30`, with seconds, fraction and offset optional. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

// Private: seconds since midnight of `HH:MM[:SS]`, or `undefined` when it is not such a time.
function parseTimeOfDay(text: string): number | undefined {
  const match = TIME_OF_DAY.exec(text.trim());
  if (match === null) return undefined;
  const [hours, minutes, seconds] = [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
  if (minutes > 59 || seconds > 59) return undefined;
  const total = hours * 3600 + minutes * 60 + seconds;
  return total <= DAY_S ? total : undefined;
}

/** Whether `openTime`–`closeTime` include `timeOfDay` (seconds since midnight); `null` if either is unreadable. */
export function isOpenAt(openTime: string | null, closeTime: string | null, timeOfDay: number): boolean | null {
  const open = openTime === null ? undefined : parseTimeOfDay(openTime);
  const close = closeTime === null ? undefined : parseTimeOfDay(closeTime);
  if (open === undefined || close === undefined) return null;
  if (open === close) return true;
  return open < close ? open <= timeOfDay && timeOfDay < close : timeOfDay >= open || timeOfDay < close;
}

/** Reads clients' times (`openAt`, `isOpen(at:)`) as seconds since midnight in one IANA time zone. */
export interface TimeReader {
  /** `HH:MM[:SS]` as is; an ISO 8601 date-time in the zone (already, without an offset); else `undefined`. */
  read(text: string): number | undefined;
  /** The time of day now in the zone. */
  now(): number;
}

/** `clock`: its wall face is the time of day now. */
export function createTimeReader(timeZone: string, clock: Clock): TimeReader {
  const format = new Intl.DateTimeFormat('en-GB', { timeZone, hourCycle: 'h23', hour: '2-digit', minute: '2-digit', second: '2-digit' });
  const timeOfDayOf = (ms: number) => {
    const parts = Object.fromEntries(format.formatToParts(ms).map((part) => [part.type, part.value]));
    return Number(parts.hour) * 3600 + Number(parts.minute) * 60 + Number(parts.second);
  };
  return {
    read(text) {
      const trimmed = text.trim();
      const timeOfDay = parseTimeOfDay(trimmed);
      if (timeOfDay !== undefined) return timeOfDay % DAY_S;
      const match = ISO_DATE_TIME.exec(trimmed);
      if (match === null) return undefined;
      // Without an offset the date-time is local to the zone: only its time of day matters.
      const iso = trimmed.replace(' ', 'T');
      if (match[1] === undefined) {
        return Number.isNaN(Date.parse(`${iso}Z`)) ? undefined : parseTimeOfDay(iso.slice(11, 19));
      }
      const ms = Date.parse(iso);
      return Number.isNaN(ms) ? undefined : timeOfDayOf(ms);
    },
    now: () => timeOfDayOf(clock.wall()),
  };
}
