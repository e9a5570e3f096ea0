/**
 * The four string formats a form schema may use (spec 2025-11-25: email, uri, date, date-time).
 * Each check is at least as strict as the SDK server's own validation (ajv-formats, "full"
 * mode), so an answer we let through is not rejected by the server afterwards.
 */

export type StringFormat = 'email' | 'uri' | 'date' | 'date-time';

export const STRING_FORMATS: readonly StringFormat[] = ['email', 'uri', 'date', 'date-time'];

export function isStringFormat(value: unknown): value is StringFormat {
  return typeof value === 'string' && (STRING_FORMATS as readonly string[]).includes(value);
}

// The ajv-formats "full" email pattern: dot-atom local part, LDH labels.
const EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;

export function isEmail(value: string): boolean {
  return value.length <= 320 && EMAIL.test(value);
}

// An absolute URI (RFC 3986): a scheme, then printable ASCII without spaces or the characters
// RFC 3986 never allows unescaped.
const URI = /^[a-z][a-z0-9+.-]*:[^\s<>"{}|\\^`\u0000-\u001f\u007f-\uffff]*$/i;

export function isUri(value: string): boolean {
  if (!URI.test(value)) return false;
  if (/%(?![0-9a-f]{2})/i.test(value)) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeap(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/** `YYYY-MM-DD`, a real calendar date (RFC 3339 full-date). */
export function isDate(value: string): boolean {
  const m = DATE.exec(value);
  if (m === null) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const max = month === 2 && isLeap(year) ? 29 : DAYS[month - 1]!;
  return day <= max;
}

const TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(z|([+-])(\d{2}):(\d{2}))$/i;

/** RFC 3339 date-time: `T` separator, seconds, and a zone (`Z` or `±hh:mm`); a leap second only at 23:59 UTC. */
export function isDateTime(value: string): boolean {
  const t = value.search(/t/i);
  if (t !== 10) return false;
  if (!isDate(value.slice(0, 10))) return false;
  const m = TIME.exec(value.slice(11));
  if (m === null) return false;
  const hour = Number(m[1]);
  const minute = Number(m[2]);
  const second = Number(m[3]);
  const sign = m[5] === '-' ? -1 : 1;
  const zoneHour = m[6] === undefined ? 0 : Number(m[6]);
  const zoneMinute = m[7] === undefined ? 0 : Number(m[7]);
  if (zoneHour > 23 || zoneMinute > 59) return false;
  if (hour > 23 || minute > 59 || second > 60) return false;
  if (second < 60) return true;
  const utcMinutes = (((hour * 60 + minute - sign * (zoneHour * 60 + zoneMinute)) % 1440) + 1440) % 1440;
  return utcMinutes === 23 * 60 + 59;
}

export function matchesFormat(format: StringFormat, value: string): boolean {
  switch (format) {
    case 'email':
      return isEmail(value);
    case 'uri':
      return isUri(value);
    case 'date':
      return isDate(value);
    case 'date-time':
      return isDateTime(value);
  }
}
