// Calendar and ISO 8601 renderings of instants: UTC dates, compact UTC stamps, times with an offset.

/** Two (or `width`) digits of a non-negative integer part. */
export function pad(n: number, width = 2): string {
  return String(Math.trunc(Math.abs(n))).padStart(width, '0');
}

/** YYYY-MM-DD in UTC. */
export function utcDay(d: Date): string {
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** YYYYMMDDTHHMMSSZ, as in segment and download file names. */
export function compactUtc(d: Date): string {
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}T${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}Z`;
}

/** The node's offset from UTC at that instant, in minutes (positive east of Greenwich). */
export function nodeOffsetMinutes(at: Date): number {
  return -at.getTimezoneOffset();
}

export function formatIsoWithOffset(at: Date, offsetMinutes: number = nodeOffsetMinutes(at)): string {
  const shifted = new Date(at.getTime() + offsetMinutes * 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  return (
    `${shifted.getUTCFullYear()}-${pad(shifted.getUTCMonth() + 1)}-${pad(shifted.getUTCDate())}` +
    `T${pad(shifted.getUTCHours())}:${pad(shifted.getUTCMinutes())}:${pad(shifted.getUTCSeconds())}` +
    `${sign}${pad(offsetMinutes / 60)}:${pad(offsetMinutes % 60)}`
  );
}
