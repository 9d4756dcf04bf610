/**
 * RFC 3339 timestamps, parsed to epoch milliseconds.
 *
 * `Date.parse` is not used on purpose: it silently rolls impossible dates over
 * (`2026-02-30` becomes March 2nd) and accepts zone-less forms as local time.
 * Validation and classification both go through `parseTimestamp`, so a string the
 * schema accepted always compares the same way in the classifier.
 */

// date "T" time [fraction] zone — the zone is mandatory (RFC 3339 §5.6).
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2 && isLeapYear(year)) return 29;
  return DAYS_IN_MONTH[month - 1] ?? 0;
}

/**
 * Epoch milliseconds of an RFC 3339 timestamp with a zone, or `undefined` when the
 * string is not one. Fractions beyond milliseconds are truncated (the contract compares
 * at millisecond precision). Leap seconds (`:60`) are rejected: epoch time cannot hold them.
 */
export function parseTimestamp(value: string): number | undefined {
  return parseCanonicalUtc(value) ?? parseGeneral(value);
}

const ZERO = 48;

/** The two-digit number at `index`, or -1 when either character is not a digit. */
function twoDigits(value: string, index: number): number {
  const tens = value.charCodeAt(index) - ZERO;
  const ones = value.charCodeAt(index + 1) - ZERO;
  if (tens < 0 || tens > 9 || ones < 0 || ones > 9) return -1;
  return tens * 10 + ones;
}

const DASH = 45;
const COLON = 58;
const DOT = 46;
const UPPER_T = 84;
const UPPER_Z = 90;

/**
 * Fast path for what producers almost always send — `toISOString()` output,
 * `YYYY-MM-DDTHH:MM:SS.sssZ`, or the same without the fraction — parsed with char codes
 * instead of a regex. Validation and classification parse every timestamp, so this is the
 * hot path; anything else falls through to the general parser.
 */
function parseCanonicalUtc(value: string): number | undefined {
  const length = value.length;
  if (length !== 24 && length !== 20) return undefined;
  if (
    value.charCodeAt(4) !== DASH ||
    value.charCodeAt(7) !== DASH ||
    value.charCodeAt(10) !== UPPER_T ||
    value.charCodeAt(13) !== COLON ||
    value.charCodeAt(16) !== COLON ||
    value.charCodeAt(length - 1) !== UPPER_Z ||
    (length === 24 && value.charCodeAt(19) !== DOT)
  ) {
    return undefined;
  }
  const century = twoDigits(value, 0);
  const yearOfCentury = twoDigits(value, 2);
  const month = twoDigits(value, 5);
  const day = twoDigits(value, 8);
  const hour = twoDigits(value, 11);
  const minute = twoDigits(value, 14);
  const second = twoDigits(value, 17);
  let millis = 0;
  if (length === 24) {
    const hundreds = value.charCodeAt(20) - ZERO;
    const rest = twoDigits(value, 21);
    if (hundreds < 0 || hundreds > 9 || rest < 0) return undefined;
    millis = hundreds * 100 + rest;
  }
  if (century < 0 || yearOfCentury < 0 || hour < 0 || minute < 0 || second < 0) return undefined;
  const year = century * 100 + yearOfCentury;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  return ((daysFromCivil(year, month, day) * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis;
}

function parseGeneral(value: string): number | undefined {
  const m = RFC3339.exec(value);
  if (m === null) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, "0"));
  let offsetMinutes = 0;
  if (m[8] === undefined) {
    const offsetHours = Number(m[10]);
    const offsetMins = Number(m[11]);
    if (offsetHours > 23 || offsetMins > 59) return undefined;
    offsetMinutes = (offsetHours * 60 + offsetMins) * (m[9] === "-" ? -1 : 1);
  }
  const days = daysFromCivil(year, month, day);
  return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis - offsetMinutes * 60_000;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm; no Date allocation). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

export function isTimestamp(value: string): boolean {
  return parseTimestamp(value) !== undefined;
}

/**
 * The instants this system stores: years 0001 to 9999 in UTC. PostgreSQL has no year 0 and reads a five-digit year
 * from `toISOString()` ("+010000-…") as a zone, so anything outside fails on write, not at validation.
 */
export const MIN_TIMESTAMP_MS = -62_135_596_800_000; // 0001-01-01T00:00:00.000Z
export const MAX_TIMESTAMP_MS = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z

export function isTimestampInRange(ms: number): boolean {
  return ms >= MIN_TIMESTAMP_MS && ms <= MAX_TIMESTAMP_MS;
}

/** Epoch milliseconds of an RFC 3339 timestamp that lies in years 0001–9999 (UTC), or `undefined`. */
export function parseStorableTimestamp(value: string): number | undefined {
  const ms = parseTimestamp(value);
  return ms !== undefined && isTimestampInRange(ms) ? ms : undefined;
}
