// Turns the listing's from / to / tz_offset_minutes into a checked window and the clock that dates days.
import { integerFromText } from '../util/integer-text.js';
import { ListingQueryError } from './archive-errors.js';
import { fixedOffsetClock, type DayClock } from './day-clock.js';

export const MAX_WINDOW_SECONDS = 25 * 3600;
export const MAX_TZ_OFFSET_MINUTES = 840;

export interface ListingQuery {
  from?: string | undefined;
  to?: string | undefined;
  tz_offset_minutes?: string | undefined;
}

export interface ListingWindow {
  fromMs: number;
  toMs: number;
  clock: DayClock;
  /** Identifies the clock for caches: `node` or the offset. */
  clockKey: string;
}

function integerParam(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = integerFromText(value);
  if (n === undefined) {
    throw new ListingQueryError('invalid_parameter', name, `${name} must be an integer${name === 'tz_offset_minutes' ? '' : ' (epoch seconds)'}, got "${value.slice(0, 40)}"`);
  }
  return n;
}

/**
 * Rules (spec section 4, architecture section 5): neither bound → today on the clock; only
 * `from` → [from, from + 1 day); only `to` → [to − 1 day, to); at most 25 hours; from ≤ to.
 */
export function resolveListingWindow(query: ListingQuery, nowMs: number, nodeClock: DayClock): ListingWindow {
  const from = integerParam('from', query.from);
  const to = integerParam('to', query.to);
  const offset = integerParam('tz_offset_minutes', query.tz_offset_minutes);
  if (offset !== undefined && Math.abs(offset) > MAX_TZ_OFFSET_MINUTES) {
    throw new ListingQueryError('invalid_parameter', 'tz_offset_minutes', `tz_offset_minutes must be between -${MAX_TZ_OFFSET_MINUTES} and ${MAX_TZ_OFFSET_MINUTES}, got ${offset}`);
  }
  const clock = offset === undefined ? nodeClock : fixedOffsetClock(offset);
  const clockKey = offset === undefined ? 'node' : `utc${offset}`;
  let fromS: number;
  let toS: number;
  if (from === undefined && to === undefined) {
    const start = clock.startOfDay(nowMs);
    return { fromMs: start, toMs: clock.startOfDay(start + 26 * 3_600_000), clock, clockKey };
  } else if (to === undefined) {
    fromS = from as number;
    toS = fromS + 86_400;
  } else if (from === undefined) {
    toS = to;
    fromS = toS - 86_400;
  } else {
    fromS = from;
    toS = to;
  }
  if (fromS > toS) throw new ListingQueryError('invalid_window', 'from', `from (${fromS}) is after to (${toS})`);
  if (toS - fromS > MAX_WINDOW_SECONDS) {
    throw new ListingQueryError('invalid_window', 'to', `the window is ${toS - fromS} s; at most ${MAX_WINDOW_SECONDS} s (25 hours) may be listed at once`);
  }
  return { fromMs: fromS * 1000, toMs: toS * 1000, clock, clockKey };
}
