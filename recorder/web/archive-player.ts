// Plays recordings of one camera and day in a <video> through MSE: play requests on one timeline, buffered seeks, gaps.
import { codecsFromInit } from './init-codec.js';
import { PlayFetch } from './play-fetch.js';

/** A play request asks for this much after its start (the API's limit); it is read only as far as playback needs. */
const REQUEST_SPAN_MS = 4 * 3600_000;
/** Reading pauses while this much is buffered ahead of the playhead. */
const AHEAD_S = 60;
/** Media further behind the playhead than this is removed (seeking back within it needs no new request). */
const KEEP_BEHIND_S = 300;
/** Playback this close to the end of a buffered range, with a later range ahead, jumps the gap. */
const GAP_JUMP_S = 0.3;
const TICK_MS = 250;
/** Fragments waiting for the SourceBuffer before reading pauses. */
const MAX_QUEUED = 16;

type Op = { kind: 'append'; data: ArrayBuffer; session: number } | { kind: 'restart'; offsetS: number; session: number } | { kind: 'remove'; start: number; end: number };

export interface PlayRecord {
  /** The wall-clock time asked for. */
  wallMs: number;
  /** performance.now() of the request, and of the first picture shown at the new position. */
  requestedAt: number;
  firstFrameAt: number | undefined;
  /** Served from what was buffered already (no request). */
  fromBuffer: boolean;
}

export interface ArchivePlayerStats {
  requests: number;
  gapJumps: number;
  lastPlay: PlayRecord | undefined;
  lastError: string | undefined;
}

export interface ArchivePlayerDeps {
  playUrl(fromMs: number, toMs: number): string;
  /** Headers of a play request: the token. */
  headers(): Record<string, string>;
  /** Something to tell the viewer ('' clears it). */
  onStatus(text: string): void;
  /** The answer ended: nothing more is recorded after `wallMs` (in the request's window). */
  onEnded?(wallMs: number): void;
}

interface Session {
  id: number;
  fetch: PlayFetch;
  /** Media seconds to show first (the asked-for time, or the first recording after it). */
  targetS: number;
  seeked: boolean;
  ended: boolean;
  /** Media seconds up to which this session's data reaches. */
  endS: number;
}

export class ArchivePlayer {
  readonly stats: ArchivePlayerStats = { requests: 0, gapJumps: 0, lastPlay: undefined, lastError: undefined };
  readonly #video: HTMLVideoElement;
  readonly #deps: ArchivePlayerDeps;
  #source: MediaSource | undefined;
  #objectUrl: string | undefined;
  #buffer: SourceBuffer | undefined;
  #codecs: string | undefined;
  #ops: Op[] = [];
  #session: Session | undefined;
  #sessionIds = 0;
  /** Wall-clock time (epoch ms) of media time zero: local midnight of the day shown. */
  #originMs = 0;
  #rate = 1;
  /** The viewer paused: new positions are shown but not played. */
  #paused = false;
  #timer: number | undefined;

  constructor(video: HTMLVideoElement, deps: ArchivePlayerDeps) {
    this.#video = video;
    this.#deps = deps;
    video.addEventListener('error', () => this.#fail(`the browser could not play the recording${video.error?.message ? `: ${video.error.message}` : ''}`));
  }

  /** A new day (or camera): media time zero is `originMs`; everything buffered is dropped. */
  reset(originMs: number): void {
    this.stop();
    this.#originMs = originMs;
    this.#source = new MediaSource();
    this.#objectUrl = URL.createObjectURL(this.#source);
    this.#video.src = this.#objectUrl;
    this.#timer = window.setInterval(() => this.#tick(), TICK_MS);
  }

  stop(): void {
    this.#session?.fetch.abort();
    this.#session = undefined;
    window.clearInterval(this.#timer);
    this.#ops = [];
    this.#buffer = undefined;
    this.#codecs = undefined;
    if (this.#objectUrl !== undefined) {
      this.#video.removeAttribute('src');
      this.#video.load();
      URL.revokeObjectURL(this.#objectUrl);
    }
    this.#source = undefined;
    this.#objectUrl = undefined;
  }

  /** Wall-clock time (epoch ms) of media time zero. */
  get originMs(): number {
    return this.#originMs;
  }

  /** Wall-clock time (epoch ms) at the playhead; undefined before anything is shown. */
  get positionMs(): number | undefined {
    return this.#session === undefined && this.#video.buffered.length === 0 ? undefined : this.#originMs + this.#video.currentTime * 1000;
  }

  get paused(): boolean {
    return this.#paused;
  }

  /**
   * Shows `wallMs`: from the buffer when it holds it, else through a new play request from there. It plays from there
   * unless the viewer paused and `resume` is false (a step while paused shows the new moment, still paused).
   */
  playAt(wallMs: number, resume: boolean): void {
    if (this.#source === undefined) return;
    if (resume) this.#paused = false;
    const targetS = (wallMs - this.#originMs) / 1000;
    const record: PlayRecord = { wallMs, requestedAt: performance.now(), firstFrameAt: undefined, fromBuffer: false };
    this.stats.lastPlay = record;
    if (this.#buffered(targetS)) {
      record.fromBuffer = true;
      this.#seek(targetS, record);
      return;
    }
    this.#startSession(wallMs, targetS);
  }

  setPaused(paused: boolean): void {
    this.#paused = paused;
    if (paused) this.#video.pause();
    else this.#video.play().catch(() => undefined);
  }

  set rate(rate: number) {
    this.#rate = rate;
    this.#video.playbackRate = rate;
  }

  #startSession(wallMs: number, targetS: number): void {
    this.#session?.fetch.abort();
    const id = ++this.#sessionIds;
    // What the old answer still had queued is dropped; what it appended stays buffered.
    this.#ops = this.#ops.filter((op) => op.kind === 'remove');
    const fetch = new PlayFetch(
      {
        onInit: (init, startWallMs) => this.#onInit(id, init, startWallMs),
        onFragment: (data) => this.#enqueue({ kind: 'append', data, session: id }),
        onEnd: () => this.#onEnd(id),
        onError: (message, status) => {
          if (this.#session?.id !== id) return;
          this.#deps.onStatus(status === 404 ? 'Nothing is recorded from there on.' : message);
        },
      },
      () => this.#aheadS() > AHEAD_S,
    );
    this.#session = { id, fetch, targetS, seeked: false, ended: false, endS: targetS };
    this.stats.requests++;
    this.#deps.onStatus('');
    void fetch.run(this.#deps.playUrl(wallMs, wallMs + REQUEST_SPAN_MS), this.#deps.headers());
  }

  #onInit(id: number, init: ArrayBuffer, startWallMs: number): void {
    const session = this.#session;
    if (session?.id !== id || this.#source === undefined) return;
    const codecs = codecsFromInit(init);
    if (codecs === null) return this.#fail('the recording uses a codec this page cannot read');
    const offsetS = (startWallMs - this.#originMs) / 1000;
    // The first picture comes from the keyframe before the asked-for time; a time in a gap shows what follows it.
    session.targetS = Math.max(session.targetS, offsetS);
    session.endS = offsetS;
    if (this.#buffer === undefined) {
      const mime = `video/mp4; codecs="${codecs}"`;
      if (!MediaSource.isTypeSupported(mime)) return this.#fail(`this browser cannot play ${mime}`);
      this.#codecs = codecs;
      void this.#whenOpen().then(() => {
        if (this.#source === undefined || this.#session?.id !== id) return;
        this.#source.duration = Infinity;
        const buffer = this.#source.addSourceBuffer(mime);
        buffer.mode = 'segments';
        buffer.addEventListener('updateend', () => this.#next());
        this.#buffer = buffer;
        this.#enqueueFirst(id, offsetS, init);
      });
      return;
    }
    if (codecs !== this.#codecs) {
      // Another stream layout: MSE cannot switch it here; start over on a fresh buffer.
      const wall = this.#originMs + session.targetS * 1000;
      this.reset(this.#originMs);
      this.playAt(wall, false);
      return;
    }
    this.#enqueueFirst(id, offsetS, init);
  }

  #enqueueFirst(id: number, offsetS: number, init: ArrayBuffer): void {
    this.#ops.unshift({ kind: 'restart', offsetS, session: id }, { kind: 'append', data: init, session: id });
    this.#next();
  }

  #whenOpen(): Promise<void> {
    const source = this.#source;
    if (source === undefined || source.readyState === 'open') return Promise.resolve();
    return new Promise((resolve) => source.addEventListener('sourceopen', () => resolve(), { once: true }));
  }

  /** Resolves once the queue is short again: reading waits for the SourceBuffer, so memory stays bounded. */
  async #enqueue(op: Op & { session: number }): Promise<void> {
    this.#ops.push(op);
    this.#next();
    while (this.#ops.length > MAX_QUEUED && this.#session?.id === op.session) await new Promise((r) => setTimeout(r, 20));
  }

  #onEnd(id: number): void {
    const session = this.#session;
    if (session?.id !== id) return;
    session.ended = true;
  }

  #next(): void {
    const buffer = this.#buffer;
    if (buffer === undefined || buffer.updating || this.#source?.readyState !== 'open') return;
    this.#afterAppend();
    const op = this.#ops.shift();
    if (op === undefined) return;
    if (op.kind !== 'remove' && op.session !== this.#session?.id) return this.#next();
    try {
      if (op.kind === 'restart') {
        // A new answer on the same timeline: reset the parser, and place its time zero at its wall-clock time.
        buffer.abort();
        buffer.timestampOffset = op.offsetS;
        this.#next();
      } else if (op.kind === 'remove') {
        buffer.remove(op.start, op.end);
      } else {
        buffer.appendBuffer(op.data);
      }
    } catch (err) {
      if (err instanceof DOMException && err.name === 'QuotaExceededError' && op.kind === 'append') {
        const behind = Math.max(0, this.#video.currentTime - 10);
        this.#ops.unshift({ kind: 'remove', start: 0, end: behind }, op);
        if (behind > 0) this.#next();
        return;
      }
      this.#fail(`the recording could not be buffered: ${String(err)}`);
    }
  }

  /** After each append: note how far the session reaches, and move to its first picture once it is buffered. */
  #afterAppend(): void {
    const session = this.#session;
    if (session === undefined) return;
    const ranges = this.#video.buffered;
    for (let i = 0; i < ranges.length; i++) if (ranges.start(i) <= session.endS + 2 && ranges.end(i) > session.endS) session.endS = ranges.end(i);
    if (!session.seeked && this.#buffered(session.targetS)) {
      session.seeked = true;
      this.#seek(session.targetS, this.stats.lastPlay);
    }
  }

  #seek(targetS: number, record: PlayRecord | undefined): void {
    const video = this.#video;
    video.currentTime = targetS;
    video.playbackRate = this.#rate;
    video.requestVideoFrameCallback(() => {
      if (record !== undefined && record.firstFrameAt === undefined) record.firstFrameAt = performance.now();
    });
    if (!this.#paused) video.play().catch(() => undefined);
  }

  /** The buffered range holding `s`, with a little to play after it. */
  #buffered(s: number): boolean {
    const ranges = this.#video.buffered;
    for (let i = 0; i < ranges.length; i++) if (ranges.start(i) <= s + 0.05 && s < ranges.end(i) - 0.1) return true;
    return false;
  }

  /** Seconds buffered ahead of the playhead in the current session's data. */
  #aheadS(): number {
    const session = this.#session;
    return session === undefined ? 0 : session.endS - Math.max(this.#video.currentTime, session.targetS);
  }

  #tick(): void {
    const video = this.#video;
    const ranges = video.buffered;
    if (ranges.length === 0 || video.seeking) return;
    const now = video.currentTime;
    let inRange = -1;
    for (let i = 0; i < ranges.length; i++) if (ranges.start(i) <= now + 0.05 && now < ranges.end(i)) inRange = i;
    const rangeEnd = inRange >= 0 ? ranges.end(inRange) : now;
    if (!this.#paused && rangeEnd - now < GAP_JUMP_S) {
      // Where the recording has a gap, playback goes on with what comes after it.
      for (let i = 0; i < ranges.length; i++) {
        if (ranges.start(i) > now + 0.05) {
          video.currentTime = ranges.start(i);
          this.stats.gapJumps++;
          video.play().catch(() => undefined);
          return;
        }
      }
      const session = this.#session;
      if (session?.ended === true && now >= session.endS - GAP_JUMP_S) this.#deps.onEnded?.(this.#originMs + now * 1000);
    }
    if (ranges.start(0) < now - KEEP_BEHIND_S - 30 && !this.#ops.some((op) => op.kind === 'remove')) {
      this.#ops.push({ kind: 'remove', start: 0, end: now - KEEP_BEHIND_S });
      this.#next();
    }
  }

  #fail(why: string): void {
    this.stats.lastError = why;
    this.#deps.onStatus(why);
  }
}
