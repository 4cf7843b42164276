// Writes one camera's stream into segment files: opens on a keyframe, rolls after segment_seconds, closes durably.
import { writev } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { RecordFormat } from '../cameras/camera.js';
import type { InitSegment, MediaFragment } from '../media/fmp4-types.js';
import { rebaseFragment, trackOffsetsFor, type TrackOffsets } from '../media/fragment-rebase.js';
import type { StreamItem } from '../stream/stream-item.js';
import type { ClosedSegment, OpenSegmentInfo } from './closed-segment.js';
import type { OpenSegmentJournal } from './open-journal.js';
import { ensureSegmentFolder, isRecordPathMissing, RecordPathMissingError } from './record-path-folders.js';
import { segmentEnd, stampSegmentEnd } from './segment-end-time.js';
import type { RecordPathState } from './record-path-watch.js';
import { segmentRelativePath } from './segment-name.js';
import type { SequenceStore } from './sequence-store.js';
import { WriteScheduler, type ScheduledWriter } from './write-scheduler.js';

export interface SegmentWriterOptions {
  cameraId: string;
  recordPath: string;
  format: RecordFormat;
  segmentSeconds: number;
  sequences: SequenceStore;
  journal: OpenSegmentJournal;
  log: Logger;
  /** Remux of an mp4-format `.part` into the final file. */
  remux(partPath: string, finalPath: string): Promise<void>;
  /** Reports the closed segment; the journal entry is dropped only after this resolves. */
  onSegmentClosed(segment: ClosedSegment): void | Promise<void>;
  /** Whether record_path is there (an unmounted disk is not); without it the writer only notices at its next open. */
  recordPathState?: RecordPathState;
  /** The recorder's one write tick, shared by every camera (default: a tick of this writer's own). */
  writeScheduler?: WriteScheduler;
  now?: () => number;
}

interface OpenSegment {
  info: OpenSegmentInfo;
  handle: FileHandle;
  writtenPath: string;
  firstDecodeTime: number;
  mediaEnd: number;
  openedAt: number;
  /** Subtracted from every decode time so the file starts at zero. */
  offsets: TrackOffsets;
  /** Fragment bytes not written yet: one writev per write tick instead of one write per fragment. */
  pending: Buffer[];
  pendingBytes: number;
  /** The holds on the pending fragments' memory, ended once their write is over (native ingest reuses it). */
  pendingHolds: Array<() => void>;
  /** The last write in flight; writes to a file never overlap. */
  writing: Promise<void>;
  /** Writes handed over and not finished yet. */
  unfinishedWrites: number;
  /** Bytes on disk whose write has finished: always the end of a whole fragment (or of the init segment). */
  writtenSize: number;
}

/**
 * Fragments are written in batches, on the recorder's write tick (WriteScheduler, 200 ms): native ingest makes one
 * fragment per picture (25 a second per camera), and one write each costs about three times the CPU of one vectored
 * write per tick. A crash loses at most the batch, the same as one ffmpeg fragment of 200 ms. A batch that reaches
 * WRITE_BATCH_BYTES (the disk is behind) is written at once, and the recording queue waits for it.
 */
const WRITE_BATCH_BYTES = 4 * 1024 * 1024;

/**
 * One vectored write through the callback API: it takes the event loop about half the time per call of the promise
 * API's FileHandle.writev (measured), and a recorder makes five a second per camera.
 */
/** For a fragment whose memory is plain garbage-collected memory (no lease). */
const NO_HOLD = (): void => undefined;

function writeAll(fd: number, parts: Buffer[]): Promise<void> {
  return new Promise((resolve, reject) => {
    writev(fd, parts, (err) => (err === null ? resolve() : reject(err)));
  });
}

export class SegmentWriter implements ScheduledWriter {
  readonly #opts: SegmentWriterOptions;
  readonly #now: () => number;
  readonly #writeScheduler: WriteScheduler;
  #init: InitSegment | undefined;
  #open: OpenSegment | undefined;
  readonly #closing = new Set<Promise<void>>();
  /** Segments being closed: no longer open, not yet reported (indexed). */
  readonly #finishing = new Map<number, OpenSegment>();
  #closedCount = 0;
  /** Segment writes and closes that failed (the bytes they held are lost); a missing record_path is not counted. */
  #writeErrors = 0;
  #paused = false;
  /** Resolved by close(): closes still waiting for record_path to come back give up (the journal keeps them). */
  #giveUp: () => void = () => undefined;
  readonly #givenUp = new Promise<void>((resolve) => {
    this.#giveUp = resolve;
  });

  constructor(opts: SegmentWriterOptions) {
    this.#opts = opts;
    this.#now = opts.now ?? Date.now;
    this.#writeScheduler = opts.writeScheduler ?? new WriteScheduler();
  }

  get closedCount(): number {
    return this.#closedCount;
  }

  /** Failed segment writes and closes since start (exported as vigil_camera_segment_write_errors_total). */
  get writeErrors(): number {
    return this.#writeErrors;
  }

  /**
   * Files on disk that the index does not hold yet: those being closed, then the open one. `writtenSize` is how much
   * of the file a reader may take: whole boxes only (fragments still in a batch, or in a write, are not counted).
   */
  unindexed(): Array<OpenSegmentInfo & { writtenPath: string; writtenSize: number }> {
    const segs = [...this.#finishing.values(), ...(this.#open === undefined ? [] : [this.#open])];
    return segs.map((seg) => ({ ...seg.info, writtenPath: seg.writtenPath, writtenSize: seg.writtenSize }));
  }

  /** The file being written right now, if any. */
  current(): OpenSegmentInfo | undefined {
    return this.#open === undefined ? undefined : { ...this.#open.info };
  }

  /**
   * The hub subscriber's handler: items arrive one at a time, in order. A fragment that only joins the batch is
   * handled synchronously (no promise); opening a file, a full batch's write and the stream's start or end return one.
   * The writer holds a fragment's lease from here until its bytes are written (or dropped).
   */
  handle(item: StreamItem): Promise<void> | void {
    if (item.type === 'fragment') return this.#write(item.fragment, item.receivedAt, item.fragment.lease?.hold() ?? NO_HOLD);
    return this.#restart(item.type === 'init' ? item.init : undefined);
  }

  /** A new init segment (or the stream's end): the open file is written out and closed. */
  async #restart(init: InitSegment | undefined): Promise<void> {
    await this.#flushOpen();
    this.#closeOpen();
    this.#init = init;
  }

  /** Closes the open segment and waits until every close (fsync, remux) has finished. */
  async close(): Promise<void> {
    this.#writeScheduler.forget(this);
    this.#closeOpen();
    this.#giveUp();
    while (this.#closing.size > 0) await Promise.all([...this.#closing]);
  }

  /** `release` ends the writer's hold on the fragment's memory: once written, or at once when it is not. */
  #write(fragment: MediaFragment, receivedAt: number, release: () => void): Promise<void> | void {
    if (!this.#mayWrite()) return release();
    const seg = this.#open;
    if (seg === undefined || (fragment.keyframe && this.#segmentFull(seg, fragment, receivedAt))) return this.#rollOver(fragment, receivedAt, release);
    return this.#append(seg, fragment, release);
  }

  /** Starts the next file with this keyframe, after the full one. */
  async #rollOver(fragment: MediaFragment, receivedAt: number, release: () => void): Promise<void> {
    let handedOver = false;
    try {
      if (!fragment.keyframe || this.#init === undefined) return; // a segment starts on a keyframe
      // The full file holds all its bytes before the next one becomes current: a file that is not current is whole.
      await this.#flushOpen();
      // The next file is opened before the full one is closed: GET …/current never sees a gap between the two.
      let next: OpenSegment | undefined;
      try {
        next = await this.#openSegment(fragment, receivedAt);
      } finally {
        this.#closeOpen();
      }
      if (next === undefined) return;
      this.#open = next;
      handedOver = true;
      await this.#append(next, fragment, release);
    } finally {
      if (!handedOver) release();
    }
  }

  /** Adds the fragment to the batch, written at the next write tick; returns the write when the batch is full. */
  #append(seg: OpenSegment, fragment: MediaFragment, release: () => void): Promise<void> | undefined {
    if (seg.pending.length === 0) this.#writeScheduler.writeWaiting(this);
    for (const part of rebaseFragment(fragment.data, seg.offsets)) seg.pending.push(part);
    seg.pendingHolds.push(release);
    seg.pendingBytes += fragment.data.length;
    seg.info.size += fragment.data.length;
    if (Number.isFinite(fragment.decodeTime)) seg.mediaEnd = fragment.decodeTime + fragment.duration;
    if (seg.pendingBytes >= WRITE_BATCH_BYTES) return this.#flush(seg);
    return undefined;
  }

  /** The write tick: the open segment's batch goes to the disk, unless the previous write is still going on. */
  writeDue(): void {
    const seg = this.#open;
    if (seg === undefined || seg.pending.length === 0) return;
    if (seg.unfinishedWrites > 0) {
      // The disk is behind: the batch grows until the next tick (or until it is full, when the queue waits for it).
      this.#writeScheduler.writeWaiting(this);
      return;
    }
    this.#flush(seg).catch((err: unknown) => this.#opts.log.error({ filename: seg.info.filename, err: String(err) }, 'segment write failed'));
  }

  /**
   * While record_path is missing nothing is written anywhere: the open segment is closed and fragments are dropped
   * until it is back; the next segment then starts at a keyframe. Ingest (and live view) go on meanwhile.
   */
  #mayWrite(): boolean {
    const present = this.#opts.recordPathState?.present ?? true;
    if (present === !this.#paused) return present;
    this.#paused = !present;
    if (this.#paused) {
      this.#opts.log.warn({ record_path: this.#opts.recordPath }, 'recording paused: record_path is missing');
      this.#closeOpen();
    } else this.#opts.log.info({ record_path: this.#opts.recordPath }, 'recording resumes: record_path is back');
    return present;
  }

  #segmentFull(seg: OpenSegment, fragment: MediaFragment, receivedAt: number): boolean {
    const limit = this.#opts.segmentSeconds;
    if (Number.isFinite(fragment.decodeTime) && Number.isFinite(seg.firstDecodeTime)) {
      return fragment.decodeTime - seg.firstDecodeTime >= limit - 0.001;
    }
    return (receivedAt - seg.openedAt) / 1000 >= limit;
  }

  async #openSegment(fragment: MediaFragment, receivedAt: number): Promise<OpenSegment | undefined> {
    const { cameraId, recordPath, format } = this.#opts;
    const init = this.#init as InitSegment;
    // The camera's own capture time (RTCP) when native ingest knows it; else when the fragment arrived.
    const start = new Date(fragment.wallClockMs ?? receivedAt);
    const sequence = await this.#opts.sequences.next(cameraId);
    const filename = segmentRelativePath(cameraId, start, sequence);
    const finalPath = join(recordPath, filename);
    const writtenPath = format === 'mp4' ? `${finalPath}.part` : finalPath;
    const entry = { cameraId, filename, format, start: start.toISOString(), sequence };
    await this.#opts.journal.add(entry);
    let handle: FileHandle;
    try {
      // Creates the camera and day folders, never record_path itself: a vanished disk is not papered over.
      await ensureSegmentFolder(recordPath, filename);
      handle = await open(writtenPath, 'w');
    } catch (err) {
      if (!(err instanceof RecordPathMissingError) && !(await isRecordPathMissing(recordPath))) throw err;
      await this.#opts.journal.remove(entry);
      this.#opts.recordPathState?.recheck();
      this.#opts.log.debug({ filename }, 'segment not opened: record_path is missing');
      return undefined;
    }
    await handle.write(init.data);
    const seg: OpenSegment = {
      writtenSize: init.data.length,
      info: { cameraId, filename, start, sequence, size: init.data.length },
      handle,
      writtenPath,
      firstDecodeTime: fragment.decodeTime,
      mediaEnd: fragment.decodeTime,
      openedAt: receivedAt,
      offsets: trackOffsetsFor(init, fragment.decodeTime, fragment.data),
      pending: [],
      pendingBytes: 0,
      pendingHolds: [],
      unfinishedWrites: 0,
      writing: Promise.resolve(),
    };
    this.#opts.log.debug({ filename }, 'segment opened');
    return seg;
  }

  async #flushOpen(): Promise<void> {
    if (this.#open !== undefined) await this.#flush(this.#open);
  }

  /** Writes what the segment holds in memory, after any write still in flight. */
  #flush(seg: OpenSegment): Promise<void> {
    const parts = seg.pending;
    const holds = seg.pendingHolds;
    const bytes = seg.pendingBytes;
    seg.pending = [];
    seg.pendingHolds = [];
    seg.pendingBytes = 0;
    if (parts.length === 0) return seg.writing;
    seg.unfinishedWrites++;
    seg.writing = seg.writing.then(async () => {
      await writeAll(seg.handle.fd, parts);
      seg.writtenSize += bytes;
    }).catch((err: unknown) => {
      this.#writeErrors++;
      throw err;
    }).finally(() => {
      seg.unfinishedWrites--;
      // Written, or failed and never to be retried: nobody needs these bytes from here.
      for (const release of holds) release();
    });
    return seg.writing;
  }

  #closeOpen(): void {
    const seg = this.#open;
    if (seg === undefined) return;
    this.#open = undefined;
    this.#finishing.set(seg.info.sequence, seg);
    const closing = this.#finish(seg).catch((err: unknown) => {
      if (err instanceof RecordPathMissingError) this.#opts.log.warn({ filename: seg.info.filename }, err.message);
      else {
        this.#writeErrors++;
        this.#opts.log.error({ filename: seg.info.filename, err: String(err) }, 'segment close failed');
      }
    });
    this.#closing.add(closing);
    void closing.finally(() => {
      this.#closing.delete(closing);
      this.#finishing.delete(seg.info.sequence);
    });
  }

  async #finish(seg: OpenSegment): Promise<void> {
    const { recordPath, format, log } = this.#opts;
    try {
      await this.#flush(seg);
      await seg.handle.datasync();
    } finally {
      await seg.handle.close();
    }
    await this.#untilRecordPathIsBack(seg);
    const finalPath = join(recordPath, seg.info.filename);
    if (format === 'mp4') await this.#opts.remux(seg.writtenPath, finalPath);
    const st = await stat(finalPath);
    const mediaSeconds = Number.isFinite(seg.mediaEnd - seg.firstDecodeTime) ? seg.mediaEnd - seg.firstDecodeTime : (this.#now() - seg.openedAt) / 1000;
    const end = segmentEnd(seg.info.start, mediaSeconds);
    await stampSegmentEnd(finalPath, st.atime, end);
    const closed: ClosedSegment = {
      cameraId: seg.info.cameraId,
      filename: seg.info.filename,
      start: seg.info.start,
      end,
      sequence: seg.info.sequence,
      size: st.size,
      mtime: Math.floor(end.getTime() / 1000),
    };
    this.#closedCount++;
    log.info({ filename: closed.filename, size: closed.size, seconds: Math.round(mediaSeconds * 10) / 10 }, 'segment closed');
    await this.#opts.onSegmentClosed(closed);
    // A crash before this line repairs and reports the segment again; its consumers take it twice without harm.
    await this.#opts.journal.remove(seg.info);
  }

  /**
   * A segment closed because record_path went missing (its data is on the vanished disk) is finished — remuxed,
   * measured, indexed — once the disk is back. If the writer is closed first, its journal entry stays and the next
   * start repairs it.
   */
  async #untilRecordPathIsBack(seg: OpenSegment): Promise<void> {
    const state = this.#opts.recordPathState;
    if (state === undefined || state.present) return;
    this.#opts.log.info({ filename: seg.info.filename }, 'segment closed while record_path is missing; it is indexed when record_path is back');
    const back = await Promise.race([state.whenPresent().then(() => true), this.#givenUp.then(() => false)]);
    if (!back) throw new RecordPathMissingError(`record_path is still missing: ${seg.info.filename} stays in the open-segment journal and is repaired at the next start`);
  }
}
