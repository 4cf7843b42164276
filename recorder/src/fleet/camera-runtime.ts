// One recorded camera: its ffmpeg supervisor, its stream hub and its segment writer, started and stopped together.
import type { Logger } from 'pino';
import type { Camera } from '../cameras/camera.js';
import { CameraSupervisor, type IngestState, type IngestStatus } from '../ingest/camera-supervisor.js';
import { rtspProbe } from '../ingest/camera-probe.js';
import { sourceKind } from '../ingest/ffmpeg-args.js';
import { FfmpegRunner, type RtspRelay } from '../ingest/ffmpeg-runner.js';
import type { IngestRunner } from '../ingest/ingest-run.js';
import { RtspTransportChoice, type RtspTransportStatus } from '../ingest/rtsp-transport-choice.js';
import type { TransportMemory } from '../ingest/transport-memory.js';
import type { ClosedSegment, OpenSegmentInfo } from '../recording/closed-segment.js';
import type { OpenSegmentJournal } from '../recording/open-journal.js';
import type { RecordPathState } from '../recording/record-path-watch.js';
import { SegmentWriter } from '../recording/segment-writer.js';
import type { SequenceStore } from '../recording/sequence-store.js';
import type { WriteScheduler } from '../recording/write-scheduler.js';
import { StreamHub, type Subscription } from '../stream/stream-hub.js';
import type { Clock } from '../util/clock.js';
import type { FleetRuntime } from './camera-fleet.js';

export interface CameraRuntimeDeps {
  recordPath: string;
  ffmpegPath: string;
  /** Makes the native RTSP runner of a camera (the recorder shares one read scheduler among them). */
  nativeRunner(camera: Camera, log: Logger, transport: RtspTransportChoice): IngestRunner;
  /** Where ffmpeg reads RTSP cameras from (no password in its command line). */
  relay?: RtspRelay;
  /** What transport worked per camera, across restarts. */
  transportMemory?: TransportMemory;
  stallSeconds: number;
  sequences: SequenceStore;
  journal: OpenSegmentJournal;
  log: Logger;
  remux(partPath: string, finalPath: string): Promise<void>;
  clock?: Clock;
  onSegmentClosed(segment: ClosedSegment): void | Promise<void>;
  recordPathState?: RecordPathState;
  /** The recorder's one write tick: every camera's batch is written together. */
  writeScheduler?: WriteScheduler;
}

/** The recorder's queue may hold this much before it skips to the next keyframe (a disk stalled for seconds). */
const RECORDING_QUEUE_BYTES = 64 * 1024 * 1024;

export class CameraRuntime implements FleetRuntime {
  readonly camera: Camera;
  readonly hub: StreamHub;
  readonly #supervisor: CameraSupervisor;
  readonly #writer: SegmentWriter;
  readonly #recording: Subscription;
  readonly #transport: RtspTransportChoice | undefined;

  constructor(camera: Camera, deps: CameraRuntimeDeps) {
    this.camera = camera;
    const log = deps.log.child({ camera: camera.id });
    this.hub = new StreamHub(camera.id);
    this.#writer = new SegmentWriter({
      cameraId: camera.id,
      recordPath: deps.recordPath,
      format: camera.record.format,
      segmentSeconds: camera.record.segmentSeconds,
      sequences: deps.sequences,
      journal: deps.journal,
      log,
      remux: deps.remux,
      onSegmentClosed: deps.onSegmentClosed,
      recordPathState: deps.recordPathState,
      writeScheduler: deps.writeScheduler,
    });
    this.#recording = this.hub.subscribe({
      kind: 'recording',
      maxQueuedBytes: RECORDING_QUEUE_BYTES,
      handle: (item) => this.#writer.handle(item),
      handlerHoldsLeases: true,
      onError: (err) => log.error({ err: String(err) }, 'segment writer failed on an item'),
    });
    const transport = sourceKind(camera.source) === 'rtsp' ? transportChoice(camera, deps.transportMemory, log) : undefined;
    this.#transport = transport;
    this.#supervisor = new CameraSupervisor({
      camera,
      hub: this.hub,
      log,
      runner: (path) =>
        path === 'native' && transport !== undefined
          ? deps.nativeRunner(camera, log, transport)
          : new FfmpegRunner({ camera, log, ffmpegPath: deps.ffmpegPath, ...(deps.relay === undefined ? {} : { relay: deps.relay }), ...(transport === undefined ? {} : { transport }) }),
      stallSeconds: deps.stallSeconds,
      ...(deps.clock === undefined ? {} : { clock: deps.clock }),
      ...(transport === undefined ? {} : { probe: rtspProbe(camera.source) }),
    });
  }

  get ingestState(): IngestState {
    return this.#supervisor.state;
  }

  /** Native or ffmpeg, and why ffmpeg when native was wanted. */
  get ingest(): IngestStatus & { rtspTransport: RtspTransportStatus | undefined } {
    return { ...this.#supervisor.ingest, rtspTransport: this.#transport?.status };
  }

  /** True while ffmpeg delivers media (false while connecting, stalled or waiting to retry). */
  get streaming(): boolean {
    return this.#supervisor.state === 'streaming';
  }

  get ffmpegPid(): number | undefined {
    return this.#supervisor.pid;
  }

  get counters(): { restarts: number; stalls: number; fallbacks: number; segmentsClosed: number; writeErrors: number; recordingDrops: number } {
    return {
      restarts: this.#supervisor.counters.restarts,
      stalls: this.#supervisor.counters.stalls,
      fallbacks: this.#supervisor.counters.fallbacks,
      segmentsClosed: this.#writer.closedCount,
      writeErrors: this.#writer.writeErrors,
      recordingDrops: this.#recording.stats.dropped,
    };
  }

  /** Segment files not in the index yet (being closed, or open), oldest first. */
  unindexedSegments(): ReturnType<SegmentWriter['unindexed']> {
    return this.#writer.unindexed();
  }

  currentSegment(): OpenSegmentInfo | undefined {
    return this.#writer.current();
  }

  start(): void {
    this.#supervisor.start();
  }

  /** Stops ingest, lets the writer take everything already received, closes the file durably. */
  async stop(): Promise<void> {
    await this.#supervisor.stop();
    await this.#recording.drained();
    await this.#writer.close();
    this.#recording.unsubscribe();
  }
}

/** The camera's transport choice: pinned by rtsp_transport, else automatic from what worked before. */
function transportChoice(camera: Camera, memory: TransportMemory | undefined, log: Logger): RtspTransportChoice {
  const pinned = camera.rtspTransport === 'auto' ? undefined : camera.rtspTransport;
  return new RtspTransportChoice({
    pinned,
    remembered: pinned === undefined ? memory?.recall(camera.id, camera.source) : undefined,
    remember: (transport) => {
      try {
        memory?.keep(camera.id, camera.source, transport);
      } catch (err) {
        log.warn({ err: err instanceof Error ? err.message : String(err) }, 'cannot keep the RTSP transport that worked in work_dir');
      }
    },
  });
}
