// The from/to query of export, time-lapse and play: integer epoch seconds, from before to, at most 4 hours.
import { integerFromText } from '../util/integer-text.js';
import { ApiError } from './error-catalogue.js';

export const MAX_JOB_WINDOW_SECONDS = 4 * 3600;

/** An integer query parameter; `required` ones answer 400 invalid_parameter when missing. */
export function integerQuery(name: string, value: string | undefined, required: boolean): number | undefined {
  if (value === undefined) {
    if (required) throw new ApiError('invalid_parameter', `${name} is required (integer epoch seconds)`, { parameter: name });
    return undefined;
  }
  const n = integerFromText(value);
  if (n === undefined) throw new ApiError('invalid_parameter', `${name} must be an integer, got "${value.slice(0, 40)}"`, { parameter: name });
  return n;
}

/** from < to (400 invalid_window) and at most 4 hours apart (413 window_too_long). */
export function checkJobWindow(from: number, to: number): void {
  if (from >= to) throw new ApiError('invalid_window', `from (${from}) must be before to (${to})`, { parameter: 'from' });
  if (to - from > MAX_JOB_WINDOW_SECONDS) throw new ApiError('window_too_long', `the window is ${to - from} s; at most ${MAX_JOB_WINDOW_SECONDS} s (4 hours)`, { parameter: 'to' });
}

/** The window of a query: both bounds required. */
export function jobWindow(query: { from?: string | undefined; to?: string | undefined }): { from: number; to: number } {
  const from = integerQuery('from', query.from, true) as number;
  const to = integerQuery('to', query.to, true) as number;
  checkJobWindow(from, to);
  return { from, to };
}
