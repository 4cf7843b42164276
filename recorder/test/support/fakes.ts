// Test support: every fake the recorder's tests share — clock, logger, cameras, services behind the HTTP app, fleet runtimes.
import { Writable } from 'node:stream';
import type { ArchiveSource } from '../../src/archive/segment-listing.js';
import { cameraFromConfig, type Camera } from '../../src/cameras/camera.js';
import type { CameraLocation, CameraLocator } from '../../src/cameras/camera-locator.js';
import { cameraSchema, configSchema } from '../../src/config/schema.js';
import type { FleetRuntime } from '../../src/fleet/camera-fleet.js';
import type { ReadinessReport } from '../../src/health/readiness.js';
import type { JobsService } from '../../src/http/routes/archive-jobs.js';
import type { PtzControl } from '../../src/http/routes/ptz.js';
import type { SnapshotSource } from '../../src/http/routes/snapshot.js';
import type { CameraControl, PlaybackService } from '../../src/http/services.js';
import { PlaybackError } from '../../src/playback/playback-errors.js';
import { SegmentFileError, segmentFilename } from '../../src/playback/segment-file.js';
import { createLogger, type Logger } from '../../src/log/logger.js';
import type { StreamHub } from '../../src/stream/stream-hub.js';
import type { Clock, TimerHandle } from '../../src/util/clock.js';

// ---------------------------------------------------------------- time

interface PendingTimer extends TimerHandle {
  at: number;
  every: number | undefined;
  fn: () => void;
  cancelled: boolean;
}

/** A Clock whose time moves only when the test says so; timers fire in time order as it moves. */
export class ManualClock implements Clock {
  #now: number;
  #timers: PendingTimer[] = [];

  constructor(startMs = Date.UTC(2026, 0, 15, 12, 0, 0)) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    return this.#add(fn, ms, undefined);
  }

  setInterval(fn: () => void, ms: number): TimerHandle {
    return this.#add(fn, ms, Math.max(1, ms));
  }

  clearTimeout(handle: TimerHandle | undefined): void {
    if (handle !== undefined) (handle as PendingTimer).cancelled = true;
  }

  clearInterval(handle: TimerHandle | undefined): void {
    this.clearTimeout(handle);
  }

  /** Timers not yet fired or cancelled. */
  get pendingTimers(): number {
    return this.#timers.filter((t) => !t.cancelled).length;
  }

  /** Moves time forward by `ms`, firing every timer due on the way (each at its own instant). */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      this.#timers = this.#timers.filter((t) => !t.cancelled);
      const next = this.#timers.reduce<PendingTimer | undefined>((a, t) => (a === undefined || t.at < a.at ? t : a), undefined);
      if (next === undefined || next.at > target) break;
      this.#now = Math.max(this.#now, next.at);
      if (next.every === undefined) next.cancelled = true;
      else next.at += next.every;
      next.fn();
    }
    this.#now = target;
  }

  /** Moves time forward in steps, letting I/O and promises run between steps (for code that awaits between timers). */
  async advanceAsync(ms: number, stepMs = 100): Promise<void> {
    for (let moved = 0; moved < ms; moved += stepMs) {
      this.advance(Math.min(stepMs, ms - moved));
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  #add(fn: () => void, ms: number, every: number | undefined): PendingTimer {
    const timer: PendingTimer = { at: this.#now + Math.max(0, ms), every, fn, cancelled: false, unref: () => timer };
    this.#timers.push(timer);
    return timer;
  }
}

// ---------------------------------------------------------------- logs and cameras

/** A logger whose lines are kept for inspection. No literal secrets: what is logged must be clean by itself. */
export function testLogger(level: 'debug' | 'info' | 'warn' = 'debug'): { log: Logger; text: () => string } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { log: createLogger({ level, destination }), text: () => lines.join('') };
}

/** A camera as the config file would give it (validated by the real schema). */
export function configCamera(entry: Record<string, unknown>): Camera {
  return cameraFromConfig(cameraSchema.parse(entry), configSchema.parse({}));
}

// ---------------------------------------------------------------- services behind the HTTP app

/** Cameras with real hubs: id → hub; undefined = known but stopped. Add or remove entries freely. */
export function hubCameras(hubs: Map<string, StreamHub | undefined>): CameraControl {
  return {
    state: (id) => (!hubs.has(id) ? undefined : hubs.get(id)?.streaming ? 'recording' : hubs.get(id) === undefined ? 'stopped' : 'stalled'),
    currentSegment: () => undefined,
    startByRequest: () => 0,
    stopByRequest: async () => 0,
    list: () => [...hubs.keys()].map((id) => ({ id, ptz: false })),
    liveHub: (id) => hubs.get(id),
    // A running camera is read natively, as RTSP cameras are by default.
    ingest: (id) => (hubs.get(id) === undefined ? undefined : { path: 'native', fallbackReason: undefined, rtspTransport: { transport: 'udp', reason: 'automatic: the camera refused TCP (461 Unsupported transport)' } }),
  };
}

/** Local when `cameras` knows the id, remote when `remote` names it, else unknown. */
export function mapLocator(known: (id: string) => boolean, remote: ReadonlyMap<string, Extract<CameraLocation, { kind: 'remote' }>> = new Map()): CameraLocator {
  return {
    nodeName: 'test-node',
    locate: async (id) => remote.get(id) ?? (known(id) ? { kind: 'local' } : { kind: 'unknown' }),
    remoteCameras: async () => [...remote].map(([id, where]) => ({ id, node: where.node, url: where.url, publicUrl: where.publicUrl, recording: true, ptz: false })),
  };
}

/** An archive without a single recording. */
export const EMPTY_ARCHIVE: ArchiveSource = { closedSegments: async () => [], days: async () => [] };

/** Jobs nobody submits in this test: submitting one fails loudly. */
export const NO_JOBS: JobsService = {
  mediaToolAvailable: async () => true,
  submit: async () => {
    throw new Error('this test submits no jobs');
  },
  get: () => undefined,
  isExpired: async () => false,
  resultPath: (id) => `/nonexistent/${id}`,
  isKnownPeer: () => false,
};

/** A node whose archive holds nothing to play or serve. */
export const NO_PLAYBACK: PlaybackService = {
  open: async (req) => {
    throw new PlaybackError('no_recordings', `camera ${req.cameraId} has nothing recorded here`);
  },
  segmentFile: async (cameraId, requested) => {
    segmentFilename(cameraId, requested);
    throw new SegmentFileError('segment_not_found', `no segment file ${requested}`);
  },
};

export const NO_SNAPSHOTS: SnapshotSource = {
  snapshot: async () => {
    throw new Error('this test takes no snapshots');
  },
};

export const NO_PTZ: PtzControl = {
  move: async () => {
    throw new Error('this test moves no camera');
  },
  stop: async () => {
    throw new Error('this test moves no camera');
  },
};

export const READY: ReadinessReport = {
  ready: true,
  failed: [],
  checks: { storage: { configured: false, reachable: false }, cluster_store: { configured: false }, recordings_dir: { path: '/srv/rec', writable: true }, license: { valid: true }, tls: { configured: false } },
};

// ---------------------------------------------------------------- fleet runtimes

/** What the fake runtimes did, for checking that a fleet never runs two runtimes of one camera. */
export class RuntimeLedger {
  /** Camera id → the runtimes started and not yet stopped (a correct fleet keeps at most one per id). */
  readonly live = new Map<string, FakeRuntime[]>();
  readonly violations: string[] = [];
  started = 0;
  stopped = 0;

  liveCount(): number {
    return [...this.live.values()].reduce((n, l) => n + l.length, 0);
  }
}

/** A camera runtime whose start is instant and whose stop takes `stopMs()` (a process being reaped, a file being synced). */
export class FakeRuntime implements FleetRuntime {
  readonly camera: Camera;
  readonly #ledger: RuntimeLedger;
  readonly #stopMs: () => number;
  #state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';

  constructor(camera: Camera, ledger: RuntimeLedger, stopMs: () => number = () => 0) {
    this.camera = camera;
    this.#ledger = ledger;
    this.#stopMs = stopMs;
  }

  get streaming(): boolean {
    return this.#state === 'running';
  }

  start(): void {
    if (this.#state !== 'new') this.#ledger.violations.push(`${this.camera.id}: started twice`);
    const live = this.#ledger.live.get(this.camera.id) ?? [];
    if (live.length > 0) this.#ledger.violations.push(`${this.camera.id}: started while ${live.length} other runtime(s) of it still ran`);
    live.push(this);
    this.#ledger.live.set(this.camera.id, live);
    this.#ledger.started++;
    this.#state = 'running';
  }

  async stop(): Promise<void> {
    if (this.#state !== 'running') this.#ledger.violations.push(`${this.camera.id}: stopped while ${this.#state}`);
    this.#state = 'stopping';
    const ms = this.#stopMs();
    if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
    else await Promise.resolve();
    const live = (this.#ledger.live.get(this.camera.id) ?? []).filter((r) => r !== this);
    if (live.length === 0) this.#ledger.live.delete(this.camera.id);
    else this.#ledger.live.set(this.camera.id, live);
    this.#ledger.stopped++;
    this.#state = 'stopped';
  }
}
