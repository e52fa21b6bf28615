// Strict ISO 8601 parsing for `updated_since`. Date.parse is far too lenient (it accepts
// "yesterday"-like strings on some engines and silently rolls 2026-02-31 over to March),
// so the calendar is checked by hand.

const PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Returns the instant as (possibly fractional) epoch milliseconds, or undefined when the text
 * is not a real ISO 8601 date or date-time. A date-time without zone is taken as UTC (the
 * spec says all timestamps are UTC); a bare date means its midnight UTC.
 */
export function parseIso8601(text: string): number | undefined {
  const m = PATTERN.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  const hour = h === undefined ? 0 : Number(h);
  const minute = mi === undefined ? 0 : Number(mi);
  const second = s === undefined ? 0 : Number(s);
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (zone && zone !== 'Z' && zone !== 'z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = sign * (oh * 60 + om);
  }
  const fractionMs = frac === undefined ? 0 : Number(`0.${frac}`) * 1000;
  return Date.UTC(year, month - 1, day, hour, minute, second) + fractionMs - offsetMinutes * 60_000;
}
