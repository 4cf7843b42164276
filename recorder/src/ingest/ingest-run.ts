// One attempt at reading a camera (an ffmpeg process or a native RTSP session), as the camera supervisor drives it.
import type { IngestPath } from '../cameras/camera.js';
import type { InitSegment, MediaFragment } from '../media/fmp4-types.js';

export interface IngestRunHandlers {
  onInit(init: InitSegment): void;
  onFragment(fragment: MediaFragment): void;
  /** Bytes came from the camera: keeps the stall watchdog quiet even before the first fragment. */
  onActivity(): void;
  /** Whether somebody watches the camera live right now (native ingest then reads on the short tick). */
  watchedLive(): boolean;
}

export interface IngestRunEnd {
  /** Fields for the supervisor's log line (exit code, error message — never a URL with credentials). */
  detail: Record<string, unknown>;
  /** Try again without waiting (e.g. ffmpeg refused the audio; the next run records video only). */
  retryAtOnce?: boolean;
  /** Native ingest met what it does not handle (a codec, B-frames, a transport): the camera falls back to ffmpeg. */
  unsupported?: string;
  /** The camera refused the credentials: retrying soon would only hammer it, so the longest delay applies. */
  authFailed?: boolean;
  /**
   * The server answered DESCRIBE without a stream (404, 500, 502, 503, 504: a relay whose publisher is not back, a camera
   * still booting); its status and reason. The next run starts soon (restart-policy.ts), not after a growing backoff.
   */
  noStreamYet?: string;
}

export interface IngestRun {
  /** The ffmpeg process id; undefined for native ingest, which runs inside the recorder. */
  readonly pid: number | undefined;
  /** Settles once the run is over and holds nothing any more (process reaped, socket closed). */
  readonly ended: Promise<IngestRunEnd>;
  /** Ends the run; resolves when `ended` has. */
  stop(): Promise<void>;
  /** Sends at once any pictures held back for a later fragment (native ingest while nobody watches). */
  sendHeld?(): void;
}

/** Starts runs of one ingest path for one camera; keeps what one run learns for the next (e.g. audio refused). */
export interface IngestRunner {
  readonly path: IngestPath;
  start(handlers: IngestRunHandlers): IngestRun;
}
