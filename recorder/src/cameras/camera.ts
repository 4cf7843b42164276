// The camera as the recorder uses it, whatever source (file, database, cluster) it came from.
import type { CameraConfigEntry, VigilConfig } from '../config/schema.js';

export type RecordFormat = 'fmp4' | 'mp4';

export type IngestPath = 'native' | 'ffmpeg';

export interface CameraRecordSettings {
  format: RecordFormat;
  segmentSeconds: number;
  maxAgeDays: number | undefined;
}

export interface Camera {
  id: string;
  /** Stream URL or synthetic source; may carry credentials — never log it unredacted. */
  source: string;
  ptz: boolean;
  snapuri: string | undefined;
  /** ONVIF device service URL for PTZ (config key `onvif`); undefined means the RTSP host on port 80. */
  onvif?: string | undefined;
  audio: 'auto' | 'off' | 'transcode';
  /** How an RTSP source is read: natively in the recorder or by an ffmpeg per camera. Other sources always use ffmpeg. */
  ingest: IngestPath;
  /** How RTP travels from an RTSP camera: `auto` (TCP first, UDP when refused), or pinned to interleaved TCP or UDP. */
  rtspTransport: 'auto' | 'tcp' | 'udp';
  record: CameraRecordSettings;
  /** Which source produced the camera: `file`, `database`, `cluster`. */
  origin: string;
}

/** The camera's effective settings: per-camera `record` overrides on top of the global ones. */
export function cameraFromConfig(entry: CameraConfigEntry, config: VigilConfig, origin = 'file'): Camera {
  return {
    id: entry.id,
    source: entry.source,
    ptz: entry.ptz,
    snapuri: entry.snapuri,
    onvif: entry.onvif,
    audio: entry.audio,
    ingest: entry.ingest ?? config.ingest,
    rtspTransport: entry.rtsp_transport,
    record: {
      format: entry.record?.format ?? config.record.format,
      segmentSeconds: entry.record?.segment_seconds ?? config.record.segment_seconds,
      maxAgeDays: entry.record?.retention?.max_age_days ?? config.record.retention.max_age_days,
    },
    origin,
  };
}

/** Two descriptions of the same camera that need no restart when swapped. */
export function sameCamera(a: Camera, b: Camera): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
