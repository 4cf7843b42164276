// GET …/play as bytes: one fragmented MP4 cut from this node's segments of a window, read from disk as the client reads.
import type { Logger } from 'pino';
import type { InitSegment, TrackInfo } from '../media/fmp4-types.js';
import type { Clock } from '../util/clock.js';
import { retimeMoof } from './fragment-retime.js';
import { fragmentTimes, leadTrack, type FragmentTimes } from './fragment-times.js';
import { trackLayoutKey } from './init-compat.js';
import { seekKeyframe } from './keyframe-seek.js';
import type { PlayArchive, PlaySegment } from './play-archive.js';
import { PlaybackError } from './playback-errors.js';
import { SegmentFileReader, type FileFragment } from './segment-file-reader.js';
import { firstPictureWallMs, PlayTimeline, trackShifts } from './timeline.js';

/** While the window reaches past what is written, the open file is looked at this often for new fragments. */
const FOLLOW_POLL_MS = 200;
/**
 * Segments are looked for this far before `from`: a segment's start is known to the second only, so the one holding
 * the keyframe before `from` may be listed as ending just before it.
 */
const START_MARGIN_MS = 2000;
/** Data for an instant can reach the disk this long after it: the stream waits that much past `to` before it ends. */
const FOLLOW_GRACE_MS = 2000;

export interface PlayDeps {
  archive: PlayArchive;
  clock: Clock;
  log: Logger;
  /** A followed recording that grows no more for this long has stopped (the camera went silent): the stream ends. */
  followIdleMs: number;
}

export interface PlayRequest {
  cameraId: string;
  fromMs: number;
  toMs: number;
}

export interface PlayStream {
  /** Wall-clock time (epoch ms) of the stream's time zero: its first sample. */
  readonly startWallMs: number;
  /** ftyp + moov, then moof and mdat boxes; read one at a time (the next is read from disk when asked for). */
  readonly chunks: AsyncGenerator<Buffer>;
  /** Stops reading and closes the file; the client went away. Safe to call more than once. */
  close(): void;
}

/** One segment file being read. */
interface Cursor {
  seg: PlaySegment;
  reader: SegmentFileReader;
  init: InitSegment;
  /** File offset of the next fragment. */
  pos: number;
  /** Bytes that may be read: the written size of an open file, the file's size once it is closed. */
  limit: number;
  closed: boolean;
  firstWallMs: number;
  /** Set at the file's first fragment: its lead decode time, and the shift that puts it on the timeline. */
  firstDecode?: number;
  leadShift?: number;
  shifts?: Map<number, number>;
}

/**
 * Opens the stream: finds the first segment that can be read, the keyframe at or before `from` in it, and the time
 * zero. Throws PlaybackError before any byte is sent (no_recordings, not_fragmented); the route answers those.
 */
export async function openPlayStream(deps: PlayDeps, req: PlayRequest, signal: AbortSignal): Promise<PlayStream> {
  const segments = await deps.archive.segments(req.cameraId, req.fromMs - START_MARGIN_MS, req.toMs);
  // From the last segment whose first picture is at or before `from` (the first one when none is).
  let first = 0;
  segments.forEach((s, i) => {
    if (firstPictureWallMs(s.startMs, s.startPrecise) <= req.fromMs) first = i;
  });
  for (const seg of segments.slice(first)) {
    const cursor = await openCursor(deps.archive, req.cameraId, seg);
    if (cursor === 'progressive') {
      throw new PlaybackError('not_fragmented', `${seg.filename} is a progressive MP4 (record.format mp4): play cuts fragmented recordings only; fetch the file whole from its url, or export the window`);
    }
    if (cursor === undefined) continue;
    const start = await startFragment(cursor, req.fromMs).catch(async (err: unknown) => {
      await cursor.reader.close();
      throw err;
    });
    if (start === undefined) {
      await cursor.reader.close();
      continue;
    }
    if (wallOf(cursor, start.times.decode) >= req.toMs) {
      await cursor.reader.close();
      break;
    }
    return new PlaySession(deps, req, cursor, start, signal).stream();
  }
  throw new PlaybackError('no_recordings', `camera ${req.cameraId} has nothing recorded on this node between ${new Date(req.fromMs).toISOString()} and ${new Date(req.toMs).toISOString()}`);
}

/** A reader at the file's first fragment; 'progressive' for a file play cannot cut, undefined when it cannot be read yet. */
async function openCursor(archive: PlayArchive, cameraId: string, seg: PlaySegment): Promise<Cursor | 'progressive' | undefined> {
  const reader = await SegmentFileReader.open(seg.path).catch(() => undefined); // deleted by retention meanwhile
  if (reader === undefined) return undefined;
  const written = archive.writtenSize(cameraId, seg.filename);
  const limit = written ?? (await reader.size());
  const read = await reader.readInit(limit);
  if (read.kind !== 'fragmented') {
    await reader.close();
    return read.kind === 'progressive' ? 'progressive' : undefined;
  }
  return { seg, reader, init: read.init, pos: read.end, limit, closed: written === undefined, firstWallMs: firstPictureWallMs(seg.startMs, seg.startPrecise) };
}

function wallOf(cursor: Cursor, decode: number): number {
  const lead = leadTrack(cursor.init) as TrackInfo;
  return cursor.firstWallMs + ((decode - (cursor.firstDecode ?? decode)) / lead.timescale) * 1000;
}

/**
 * The keyframe fragment at or before `fromMs` (the file's first one when `fromMs` is before it), found on fragment
 * headers (keyframe-seek.ts): only that fragment's samples are read.
 */
async function startFragment(cursor: Cursor, fromMs: number): Promise<{ fragment: FileFragment; times: FragmentTimes } | undefined> {
  const lead = leadTrack(cursor.init);
  if (lead === undefined || lead.timescale <= 0) return undefined;
  const file = { reader: cursor.reader, init: cursor.init, lead, firstPos: cursor.pos, limit: cursor.limit };
  const seeked = await seekKeyframe(file, (firstDecode) => firstDecode + Math.floor(((fromMs - cursor.firstWallMs) / 1000) * lead.timescale));
  if (seeked === undefined) return undefined;
  const fragment = await cursor.reader.fragmentAt(seeked.offset, cursor.limit);
  if (fragment === undefined) return undefined;
  cursor.firstDecode = seeked.firstDecode;
  return { fragment, times: seeked.times };
}

class PlaySession {
  readonly #deps: PlayDeps;
  readonly #req: PlayRequest;
  readonly #signal: AbortSignal;
  readonly #layout: string;
  readonly #lead: TrackInfo;
  readonly #timeline: PlayTimeline;
  #cursor: Cursor;
  /** Files found unreadable (no init segment) after the stream began: passed over. */
  readonly #skipped = new Set<number>();
  #first: FileFragment | undefined;
  #sequence = 1;
  #outOffset = 0;
  #closed = false;

  constructor(deps: PlayDeps, req: PlayRequest, cursor: Cursor, start: { fragment: FileFragment; times: FragmentTimes }, signal: AbortSignal) {
    this.#deps = deps;
    this.#req = req;
    this.#signal = signal;
    this.#cursor = cursor;
    this.#layout = trackLayoutKey(cursor.init);
    this.#lead = leadTrack(cursor.init) as TrackInfo;
    // Time zero is the earliest sample of the first fragment (audio may start a little before its keyframe).
    const zero = Math.floor(start.times.earliestSeconds * this.#lead.timescale);
    this.#timeline = new PlayTimeline(this.#lead.timescale, wallOf(cursor, start.times.decode) - ((start.times.decode - zero) / this.#lead.timescale) * 1000);
    this.#setShift(cursor, -zero);
    cursor.pos = start.fragment.offset;
    this.#first = start.fragment;
  }

  stream(): PlayStream {
    return { startWallMs: this.#timeline.originWallMs, chunks: this.#chunks(), close: () => this.#close() };
  }

  /** Closes the file being read (again, harmlessly, when a later file was opened meanwhile). */
  #close(): void {
    this.#closed = true;
    void this.#cursor.reader.close();
  }

  #setShift(cursor: Cursor, leadShift: number): void {
    cursor.leadShift = leadShift;
    cursor.shifts = trackShifts(cursor.init.tracks, this.#lead, leadShift);
  }

  async *#chunks(): AsyncGenerator<Buffer> {
    try {
      yield this.#cursor.init.data;
      this.#outOffset = this.#cursor.init.data.length;
      let idleSince = this.#deps.clock.now();
      while (!this.#closed && !this.#signal.aborted) {
        const fragment = this.#first ?? (await this.#cursor.reader.fragmentAt(this.#cursor.pos, this.#cursor.limit));
        this.#first = undefined;
        if (fragment !== undefined) {
          const out = this.#place(fragment);
          if (out === 'end') return;
          if (out === undefined) continue;
          idleSince = this.#deps.clock.now();
          yield out.moof;
          yield fragment.mdat;
          continue;
        }
        const more = await this.#more();
        if (more === 'end') return;
        if (more === 'wait') {
          const now = this.#deps.clock.now();
          if (now >= this.#req.toMs + FOLLOW_GRACE_MS || now - idleSince >= this.#deps.followIdleMs) return;
          await this.#sleep(FOLLOW_POLL_MS);
        }
      }
    } catch (err) {
      // A read cut short by close() (the client left) is the end, not a failure.
      if (!this.#closed) throw err;
    } finally {
      this.#close();
    }
  }

  /** The fragment as it goes out (undefined: skipped), or 'end' when it is at or past `to`. */
  #place(fragment: FileFragment): { moof: Buffer } | 'end' | undefined {
    const cursor = this.#cursor;
    cursor.pos = fragment.end;
    const times = fragmentTimes(fragment.moof, fragment.offset, cursor.init, this.#lead);
    if (times === undefined) return undefined;
    if (cursor.leadShift === undefined) {
      // A new file's first fragment: it follows on from the previous file, or after a gap at its own time.
      cursor.firstDecode = times.decode;
      this.#setShift(cursor, this.#timeline.placeNext(cursor.firstWallMs) - times.decode);
    }
    if (wallOf(cursor, times.decode) >= this.#req.toMs) return 'end';
    const leadShift = cursor.leadShift as number;
    const moof = retimeMoof(fragment.moof, { shifts: cursor.shifts as Map<number, number>, sequenceNumber: this.#sequence++, fromOffset: fragment.offset, toOffset: this.#outOffset });
    this.#outOffset += moof.length + fragment.mdat.length;
    this.#timeline.advance(times.decode + times.duration + leadShift);
    return { moof };
  }

  /**
   * Nothing whole at the read position: 'read' when more can be read now (the file grew, or the next file is open),
   * 'wait' when the recording may still grow or go on in a next file, 'end' when the recording changes layout.
   */
  async #more(): Promise<'read' | 'wait' | 'end'> {
    const cursor = this.#cursor;
    if (!cursor.closed) {
      const written = this.#deps.archive.writtenSize(this.#req.cameraId, cursor.seg.filename);
      cursor.closed = written === undefined;
      const limit = written ?? (await cursor.reader.size());
      if (limit > cursor.limit) {
        cursor.limit = limit;
        return 'read';
      }
    }
    // The next file by sequence: every later one starts after this one (times estimated from names would miss a
    // short file, one cut by a stop, whose listed end falls before where the timeline has got to).
    const candidates = await this.#deps.archive.segments(this.#req.cameraId, cursor.seg.startMs, this.#req.toMs);
    const next = candidates.find((s) => s.sequence > cursor.seg.sequence && !this.#skipped.has(s.sequence));
    // Closed with nothing after it yet is what a reconnect looks like (the camera's next file opens a second or two
    // later): wait as for a file that may grow; the stream ends past `to` or after stall_seconds with no growth.
    if (next === undefined) return 'wait';
    const opened = await openCursor(this.#deps.archive, this.#req.cameraId, next);
    if (opened === undefined) {
      // A file being written gets its first fragment soon; a closed one that cannot be read never will.
      if (this.#deps.archive.writtenSize(this.#req.cameraId, next.filename) !== undefined) return 'wait';
      this.#skipped.add(next.sequence);
      return 'read';
    }
    if (opened === 'progressive' || trackLayoutKey(opened.init) !== this.#layout) {
      if (opened !== 'progressive') await opened.reader.close();
      this.#deps.log.info({ camera: this.#req.cameraId, filename: next.filename }, 'play ends where the recording changes format or stream layout');
      return 'end';
    }
    await cursor.reader.close();
    this.#cursor = opened;
    // close() may have come while the next file was being opened: it closed the previous one.
    if (this.#closed) await opened.reader.close();
    return 'read';
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.#deps.clock.clearTimeout(timer);
        this.#signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = this.#deps.clock.setTimeout(done, ms);
      this.#signal.addEventListener('abort', done, { once: true });
    });
  }
}
