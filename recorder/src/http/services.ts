// What the HTTP layer needs from the recorder's services: small interfaces, implemented below http/.
import type { PlayRequest, PlayStream } from '../playback/play-stream.js';
import type { SegmentFile } from '../playback/segment-file.js';
import type { OpenSegmentInfo } from '../recording/closed-segment.js';
import type { StreamHub } from '../stream/stream-hub.js';

/** The part of a camera's stream hub the live WebSocket and the camera list use. */
export type LiveHub = Pick<StreamHub, 'subscribe' | 'init' | 'streaming'>;

export interface CameraControl {
  /** undefined when the node does not know the camera. */
  state(cameraId: string): 'recording' | 'stalled' | 'stopped' | undefined;
  /** The file being written, only when the camera records in fmp4 (an mp4 file is unreadable until it closes). */
  currentSegment(cameraId: string): OpenSegmentInfo | undefined;
  /** `*` means every camera; throws CameraNotFoundError for an unknown id. */
  startByRequest(id: string): number;
  stopByRequest(id: string): Promise<number>;
  /** Every camera this node knows (running or stopped). */
  list(): Array<{ id: string; ptz: boolean }>;
  /** The live stream of a running camera; undefined when the camera is unknown or stopped. */
  liveHub(cameraId: string): LiveHub | undefined;
  /** How a running camera is read (native or ffmpeg) and why ffmpeg when native was wanted; undefined when stopped. */
  ingest(cameraId: string):
    | { path: 'native' | 'ffmpeg'; fallbackReason: string | undefined; rtspTransport?: { transport: 'tcp' | 'udp'; reason: string } | undefined }
    | undefined;
}

/** The playback server: segment files as they are on disk, and windows cut across them (playback/). */
export interface PlaybackService {
  /** Throws PlaybackError (no_recordings, not_fragmented) or ArchiveDiskError before anything is streamed. */
  open(req: PlayRequest, signal: AbortSignal): Promise<PlayStream>;
  /** Throws SegmentFileError (invalid_filename, segment_not_found, camera_not_found). */
  segmentFile(cameraId: string, requested: string): Promise<SegmentFile>;
}
