// ISO 8601 timestamps carrying a UTC offset: the viewer's when given, else the node's own.

function pad(n: number, width = 2): string {
  return String(Math.trunc(Math.abs(n))).padStart(width, '0');
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
