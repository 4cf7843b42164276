// Days and times on the browser's clock: a day's bounds, its UTC offset (daylight saving included), labels.

/** YYYY-MM-DD of an instant on the browser's clock. */
export function localDay(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** Local midnight starting the day `day` (YYYY-MM-DD), and the next one (23, 24 or 25 hours later). */
export function dayBounds(day: string): { startMs: number; endMs: number } {
  const [y = 1970, m = 1, d = 1] = day.split('-').map(Number);
  return { startMs: new Date(y, m - 1, d).getTime(), endMs: new Date(y, m - 1, d + 1).getTime() };
}

/** The browser's minutes ahead of UTC on that day (what the listing's tz_offset_minutes wants). */
export function offsetMinutesOn(day: string): number {
  const { startMs, endMs } = dayBounds(day);
  return -new Date((startMs + endMs) / 2).getTimezoneOffset();
}

/** The UTC offsets the browser's time zone uses in the year of `day` (one, or two with daylight saving). */
export function offsetsOfYear(day: string): number[] {
  const year = day.slice(0, 4);
  return [...new Set([offsetMinutesOn(`${year}-01-15`), offsetMinutesOn(`${year}-07-15`)])];
}

/**
 * The days with recordings, each dated with its own UTC offset: `answers` are the listing's `days` asked with each
 * offset of the time zone (the listing dates every day with the one offset it is given); a day is taken from the
 * answer of its own offset, or from `primary`'s when its offset was not asked (another year's rules).
 */
export function daysOnTheirOwnOffsets(answers: ReadonlyMap<number, readonly string[]>, primary: number): string[] {
  const days = new Set<string>();
  for (const [offset, list] of answers) {
    for (const day of list) {
      const own = offsetMinutesOn(day);
      if ((answers.has(own) ? own : primary) === offset) days.add(day);
    }
  }
  return [...days].sort();
}

export function isDay(text: string | null): text is string {
  return text !== null && /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(dayBounds(text).startMs);
}

/** HH:MM:SS on the browser's clock. */
export function clockTime(ms: number, seconds = true): string {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}${seconds ? `:${pad(d.getSeconds())}` : ''}`;
}

export function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** "1 h 5 min", "3 min 20 s", "45 s". */
export function spokenDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  if (s >= 60) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${s} s`;
}
