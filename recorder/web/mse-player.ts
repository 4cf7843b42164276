// Plays one live fMP4 stream in a <video> through Media Source Extensions: queued appends, trimming, live-edge chasing.

/**
 * Closer to the newest buffered frame than this, playback runs slightly slow to build a cushion. With one fragment per
 * picture (native ingest) playback otherwise starts right at the edge and runs dry at the first late packet.
 */
const CUSHION_BEHIND_S = 0.15;
const CUSHION_RATE = 0.9;
/**
 * Further behind than the cushion plus this band, playback runs slightly fast to catch up without a jump. The band is
 * the media one append adds (a fragment arrives as a step of that size), and at least MIN_BAND_S: 0.08 s with one
 * fragment per picture, 0.2 s with 200 ms fragments. Between cushion and band playback runs at 1×. One wide band
 * (0.15–0.6 s) for every stream let playback settle anywhere in it: half a second late as often as 0.15 s.
 */
const MIN_BAND_S = 0.08;
const CATCH_UP_RATE = 1.1;
/** What one append adds before it has been measured: a 200 ms fragment (ffmpeg ingest, pictures held in batches). */
const INITIAL_STEP_S = 0.2;
/** Further behind than this, playback jumps into the band. */
const JUMP_BEHIND_S = 1.0;
/** Media kept behind the playhead; older data is removed from the SourceBuffer. */
const KEEP_BEHIND_S = 10;
const TRIM_EVERY_S = 5;
const EDGE_CHECK_MS = 250;

type Op = { kind: 'append'; data: ArrayBuffer } | { kind: 'remove'; end: number };

export interface PlayerStats {
  appended: number;
  bytes: number;
  /** performance.now() when the first frame was presented. */
  firstFrameAt: number | undefined;
  liveEdgeJumps: number;
  /** 'waiting' events after the first frame: playback ran out of data. */
  stalls: number;
  trims: number;
}

export class MsePlayer {
  readonly stats: PlayerStats = { appended: 0, bytes: 0, firstFrameAt: undefined, liveEdgeJumps: 0, stalls: 0, trims: 0 };
  readonly #video: HTMLVideoElement;
  readonly #onFatal: (why: string) => void;
  readonly #source = new MediaSource();
  readonly #objectUrl: string;
  readonly #opened: Promise<void>;
  #buffer: SourceBuffer | undefined;
  #ops: Op[] = [];
  #timer: number | undefined;
  #detached = false;
  /** Whether the SourceBuffer's running update is an append (its end then moved by one fragment). */
  #appending = false;
  #lastEnd = 0;
  /** Smoothed media seconds one append adds: 0.04 s for a fragment per picture at 25 fps, ~0.2 s for batches. */
  #stepS = INITIAL_STEP_S;
  readonly #onWaiting = (): void => {
    // A seek (our own jump to the live edge) waits too; only running out of data is a stall.
    if (this.stats.firstFrameAt !== undefined && !this.#video.seeking) this.stats.stalls++;
  };

  constructor(video: HTMLVideoElement, onFatal: (why: string) => void) {
    this.#video = video;
    this.#onFatal = onFatal;
    this.#opened = new Promise((resolve) => this.#source.addEventListener('sourceopen', () => resolve(), { once: true }));
    this.#objectUrl = URL.createObjectURL(this.#source);
    video.src = this.#objectUrl;
    video.addEventListener('waiting', this.#onWaiting);
    video.requestVideoFrameCallback(() => {
      this.stats.firstFrameAt = performance.now();
    });
  }

  /** The first message of a connection: creates the SourceBuffer for these codecs. */
  async start(init: ArrayBuffer, codecs: string): Promise<void> {
    const mime = `video/mp4; codecs="${codecs}"`;
    if (!MediaSource.isTypeSupported(mime)) throw new Error(`this browser cannot play ${mime}`);
    await this.#opened;
    if (this.#detached) return;
    this.#source.duration = Infinity;
    const buffer = this.#source.addSourceBuffer(mime);
    buffer.mode = 'segments';
    buffer.addEventListener('updateend', () => {
      // Once the MediaSource is closed — by detach(), or by the media element on a decode error — its SourceBuffers
      // are removed from it, and an append that was running ends with 'updateend' on one: reading its `buffered` then
      // throws. Nothing is left to do for it (a decode error has already been reported through 'error').
      if (this.#sourceClosed()) return;
      if (this.#appending) this.#measureStep(buffer);
      this.#appending = false;
      this.#next();
    });
    buffer.addEventListener('error', () => {
      // The media element records why (e.g. Chromium's "CHUNK_DEMUXER_ERROR_APPEND_FAILED: …") once the MediaSource
      // has ended with a decode error, which happens after this event: read it a task later.
      window.setTimeout(() => {
        if (this.#detached) return;
        const detail = this.#video.error?.message;
        this.#onFatal(`the media buffer reported an error${detail ? `: ${detail}` : ''}`);
      }, 0);
    });
    this.#buffer = buffer;
    this.#timer = window.setInterval(() => this.#chaseLiveEdge(), EDGE_CHECK_MS);
    // Fragments that came while the MediaSource was opening are queued already; the init segment goes before them.
    this.#ops.unshift({ kind: 'append', data: init });
    this.#next();
  }

  /** Queues a media fragment; those that come before start() are played after its init segment. */
  append(data: ArrayBuffer): void {
    if (this.#detached) return;
    this.#ops.push({ kind: 'append', data });
    this.#next();
  }

  detach(): void {
    if (this.#detached) return;
    this.#detached = true;
    window.clearInterval(this.#timer);
    this.#video.removeEventListener('waiting', this.#onWaiting);
    this.#ops = [];
    this.#video.removeAttribute('src');
    this.#video.load();
    URL.revokeObjectURL(this.#objectUrl);
  }

  /** detach() was called, or the media element closed the MediaSource (a decode error): its SourceBuffer is gone. */
  #sourceClosed(): boolean {
    return this.#detached || this.#source.readyState === 'closed';
  }

  #next(): void {
    const buffer = this.#buffer;
    if (buffer === undefined || buffer.updating || this.#sourceClosed()) return;
    this.#chaseLiveEdge();
    this.#queueTrim(buffer);
    const op = this.#ops.shift();
    if (op === undefined) return;
    try {
      if (op.kind === 'remove') {
        buffer.remove(0, op.end);
        this.stats.trims++;
        return;
      }
      buffer.appendBuffer(op.data);
      this.#appending = true;
      this.stats.appended++;
      this.stats.bytes += op.data.byteLength;
    } catch (err) {
      if (err instanceof DOMException && err.name === 'QuotaExceededError' && op.kind === 'append') {
        // Full: drop what is behind the playhead first, then retry this append.
        this.#ops.unshift({ kind: 'remove', end: Math.max(0, this.#video.currentTime - 1) }, op);
        this.#next();
        return;
      }
      this.#onFatal(`append failed: ${String(err)}`);
    }
  }

  #queueTrim(buffer: SourceBuffer): void {
    const ranges = buffer.buffered;
    if (ranges.length === 0 || this.#ops.some((o) => o.kind === 'remove')) return;
    const keepFrom = this.#video.currentTime - KEEP_BEHIND_S;
    if (keepFrom - ranges.start(0) > TRIM_EVERY_S) this.#ops.unshift({ kind: 'remove', end: keepFrom });
  }

  #measureStep(buffer: SourceBuffer): void {
    const ranges = buffer.buffered;
    if (ranges.length === 0) return;
    const end = ranges.end(ranges.length - 1);
    const step = end - this.#lastEnd;
    this.#lastEnd = end;
    // The init segment adds nothing; a GOP sent at once on joining, or a gap, is not a step.
    if (step > 0 && step < JUMP_BEHIND_S) this.#stepS += (step - this.#stepS) / 8;
  }

  #chaseLiveEdge(): void {
    const video = this.#video;
    const ranges = video.buffered;
    if (ranges.length === 0) return;
    const start = ranges.start(ranges.length - 1);
    const end = ranges.end(ranges.length - 1);
    const behind = end - video.currentTime;
    const catchUpBehind = CUSHION_BEHIND_S + Math.max(MIN_BAND_S, this.#stepS);
    if (behind > JUMP_BEHIND_S || video.currentTime < start) {
      video.currentTime = Math.max(start, end - (CUSHION_BEHIND_S + catchUpBehind) / 2);
      this.stats.liveEdgeJumps++;
    }
    video.playbackRate = behind > catchUpBehind ? CATCH_UP_RATE : behind < CUSHION_BEHIND_S ? CUSHION_RATE : 1;
    if (video.paused) video.play().catch(() => undefined);
  }
}
