// Set-up shared by the end-to-end tests: a recorder process and a test camera that end with the test, one camera
// on each ingest path, and the wait for a camera to record.
import type { TestContext } from 'node:test';
import { waitUntil } from '@vigil/testing/processes';
import { startRtspCamera, type RtspCamera, type RtspCameraOptions } from '@vigil/testing/rtsp-camera';
import { tempDir } from '@vigil/testing/temp-dir';
import { startRecorderProcess, type RecorderProcess } from '../support/recorder-process.js';
import { getJson } from './helpers.js';

/** A recorder process with this config, its files in `dir` (a fresh temporary folder without one), stopped when the test ends. */
export async function recorderForTest(t: TestContext, config: Record<string, unknown>, dir?: string): Promise<RecorderProcess> {
  const rec = await startRecorderProcess({ dir: dir ?? (await tempDir(t)), config });
  t.after(() => rec.stop());
  return rec;
}

/** The test camera (ffmpeg publishing a test pattern over RTSP), stopped when the test ends. */
export async function cameraForTest(t: TestContext, options: RtspCameraOptions): Promise<RtspCamera> {
  const camera = await startRtspCamera(options);
  t.after(() => camera.stop());
  return camera;
}

/** The same source as two cameras, `<prefix>-native` and `<prefix>-ffmpeg` (ingest: ffmpeg), each with `settings`. */
export function onBothIngestPaths(prefix: string, source: string, settings: Record<string, unknown> = {}): Array<Record<string, unknown>> {
  return [
    { id: `${prefix}-native`, source, ...settings },
    { id: `${prefix}-ffmpeg`, source, ...settings, ingest: 'ffmpeg' },
  ];
}

/** Resolves once the camera writes a file (GET /api/archive/{id}/current answers 200; `token` when auth is on). */
export async function waitRecording(rec: RecorderProcess, id: string, options: { token?: string; timeoutMs?: number; stepMs?: number } = {}): Promise<void> {
  const writing = async (): Promise<boolean> => (await getJson(`${rec.url}/api/archive/${id}/current`, options.token)).status === 200;
  try {
    await waitUntil(writing, options.timeoutMs ?? 30_000, `${id} records`, options.stepMs);
  } catch (error) {
    // What the camera did meanwhile says why: it never connected, its stream did not start, or it kept restarting.
    const own = rec.logs().filter((l) => l['camera'] === id).slice(-12).map((l) => `  ${l.msg} ${JSON.stringify({ ...l, msg: undefined, time: undefined })}`);
    throw new Error(`${(error as Error).message}; its last log lines:\n${own.join('\n') || '  (none)'}`);
  }
}
