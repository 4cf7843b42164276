// Per-camera Prometheus series, read from the live counters of each running camera at scrape time.
import { Counter, Gauge, type Registry } from 'prom-client';

/** One running camera's counters since it (re)started; label values are camera ids only, never URLs. */
export interface CameraStats {
  id: string;
  bytes: number;
  fragments: number;
  restarts: number;
  stalls: number;
  /** Times native ingest gave the camera up to ffmpeg. */
  fallbacks: number;
  segmentsClosed: number;
  /** Segment writes and closes that failed. */
  writeErrors: number;
  dropped: { recording: number; live: number };
  viewers: number;
  /** Epoch milliseconds of the last fragment; undefined before the first. */
  lastFragmentAt: number | undefined;
}

type CounterField = 'bytes' | 'fragments' | 'restarts' | 'stalls' | 'fallbacks' | 'segmentsClosed' | 'writeErrors';

export function registerCameraSeries(registry: Registry, cameras: () => CameraStats[], now: () => number = Date.now): void {
  // Counters restart from zero when a camera restarts (new runtime); Prometheus treats that as a counter reset.
  const counter = (name: string, help: string, field: CounterField): void => {
    new Counter({
      name,
      help,
      labelNames: ['camera'],
      registers: [registry],
      collect() {
        this.reset();
        for (const cam of cameras()) this.inc({ camera: cam.id }, cam[field]);
      },
    });
  };
  counter('vigil_camera_ingest_bytes_total', 'Media bytes received from the camera', 'bytes');
  counter('vigil_camera_fragments_total', 'fMP4 fragments received from the camera', 'fragments');
  counter('vigil_camera_reconnects_total', 'Restarts of the camera ingest (native session or ffmpeg) after an end or a stall', 'restarts');
  counter('vigil_camera_stalls_total', 'Times the camera went silent for stall_seconds', 'stalls');
  counter('vigil_camera_ingest_fallbacks_total', 'Times native ingest gave the camera up to ffmpeg (a codec or payload format it does not handle)', 'fallbacks');
  counter('vigil_camera_segments_closed_total', 'Segment files closed', 'segmentsClosed');
  counter('vigil_camera_segment_write_errors_total', 'Segment writes and closes that failed (the media they held is lost)', 'writeErrors');

  new Counter({
    name: 'vigil_camera_fragments_dropped_total',
    help: 'Fragments dropped because a subscriber was too slow, by subscriber kind (recording, live)',
    labelNames: ['camera', 'subscriber'],
    registers: [registry],
    collect() {
      this.reset();
      for (const cam of cameras()) {
        this.inc({ camera: cam.id, subscriber: 'recording' }, cam.dropped.recording);
        this.inc({ camera: cam.id, subscriber: 'live' }, cam.dropped.live);
      }
    },
  });
  new Gauge({
    name: 'vigil_camera_live_viewers',
    help: 'Live WebSocket viewers of the camera',
    labelNames: ['camera'],
    registers: [registry],
    collect() {
      this.reset();
      for (const cam of cameras()) this.set({ camera: cam.id }, cam.viewers);
    },
  });
  new Gauge({
    name: 'vigil_camera_seconds_since_last_fragment',
    help: 'Seconds since the camera last delivered a fragment (absent before the first)',
    labelNames: ['camera'],
    registers: [registry],
    collect() {
      this.reset();
      for (const cam of cameras()) if (cam.lastFragmentAt !== undefined) this.set({ camera: cam.id }, Math.max(0, (now() - cam.lastFragmentAt) / 1000));
    },
  });
}
