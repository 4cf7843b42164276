// Segment file naming: <camera>/<YYYY-MM-DD>/<camera>_<YYYYMMDDTHHMMSSZ>_<sequence>.mp4, dates in UTC.

import { compactUtc, utcDay } from '../util/iso-time.js';

const NAME_PATTERN = /^(.+)_(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z_(\d+)\.mp4$/;

export interface SegmentName {
  cameraId: string;
  start: Date;
  sequence: number;
}


/** Path relative to record_path, with forward slashes. */
export function segmentRelativePath(cameraId: string, start: Date, sequence: number): string {
  return `${cameraId}/${utcDay(start)}/${cameraId}_${compactUtc(start)}_${sequence}.mp4`;
}

/** Reads camera, start and sequence back from a segment's base name; undefined for other files. */
export function parseSegmentFileName(baseName: string): SegmentName | undefined {
  const m = NAME_PATTERN.exec(baseName);
  if (m === null) return undefined;
  const [, cameraId, y, mo, d, h, mi, s, seq] = m;
  const start = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)));
  if (Number.isNaN(start.getTime()) || cameraId === undefined) return undefined;
  return { cameraId, start, sequence: Number(seq) };
}

export const DAY_FOLDER_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
