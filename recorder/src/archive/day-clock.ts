// Whose calendar dates days and timestamps: the viewer's fixed UTC offset, or the node's own time zone.
import { formatIsoWithOffset, nodeOffsetMinutes, pad, utcDay } from '../util/iso-time.js';

const DAY_MS = 86_400_000;

export interface DayClock {
  /** Minutes ahead of UTC at that instant. */
  offsetAt(ms: number): number;
  /** YYYY-MM-DD of the instant on this clock. */
  dayOf(ms: number): string;
  /** The instant the day containing `ms` began on this clock. */
  startOfDay(ms: number): number;
  /** ISO 8601 with this clock's offset. */
  format(ms: number): string;
  /** For SQL: a fixed offset in minutes, or the IANA zone name of the node. */
  readonly sqlZone: { offsetMinutes: number } | { zone: string };
}

/** A viewer's clock: `tz_offset_minutes` ahead of UTC all year. */
export function fixedOffsetClock(offsetMinutes: number): DayClock {
  const off = offsetMinutes * 60_000;
  return {
    offsetAt: () => offsetMinutes,
    dayOf: (ms) => utcDay(new Date(ms + off)),
    startOfDay: (ms) => Math.floor((ms + off) / DAY_MS) * DAY_MS - off,
    format: (ms) => formatIsoWithOffset(new Date(ms), offsetMinutes),
    sqlZone: { offsetMinutes },
  };
}

/** The node's clock: its local time zone, daylight-saving shifts included. */
export function nodeClock(): DayClock {
  return {
    offsetAt: (ms) => nodeOffsetMinutes(new Date(ms)),
    dayOf: (ms) => {
      const d = new Date(ms);
      return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
    },
    startOfDay: (ms) => {
      const d = new Date(ms);
      return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
    },
    format: (ms) => formatIsoWithOffset(new Date(ms)),
    sqlZone: { zone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC' },
  };
}
