// Test support: many RTSP cameras from one GStreamer process (testing/fixtures/rtsp_multi_camera.py), each mount looping one H.264 file.
import { fileURLToPath } from 'node:url';
import { spawnRtspFixture } from './rtsp-camera.js';

const FIXTURE = fileURLToPath(new URL('../../fixtures/rtsp_multi_camera.py', import.meta.url));

export interface MultiCameraOptions {
  mounts: number;
  /** An Annex-B H.264 file (encodeLoopFile makes one). */
  file: string;
  fps?: number;
  prefix?: string;
  auth?: 'none' | 'digest' | 'basic';
  user?: string;
  password?: string;
}

export interface MultiCamera {
  readonly port: number;
  /** rtsp://127.0.0.1:PORT/cam<i>, without credentials. */
  url(i: number): string;
  /** The same with the login, URL-encoded. */
  urlWithCredentials(i: number): string;
  /** SIGTERM, then SIGKILL after 3 s; resolves once the process is gone. */
  stop(): Promise<void>;
}

export async function startMultiCamera(opts: MultiCameraOptions): Promise<MultiCamera> {
  const prefix = opts.prefix ?? '/cam';
  const user = opts.user ?? 'viewer';
  const password = opts.password ?? 'secret';
  const args = [FIXTURE, '--port', '0', '--mounts', String(opts.mounts), '--file', opts.file, '--fps', String(opts.fps ?? 25), '--prefix', prefix, '--auth', opts.auth ?? 'none', '--user', user, '--password', password, '--watch-stdin'];
  const { child, port } = await spawnRtspFixture(args, 0);
  const exited = new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));
  return {
    port,
    url: (i) => `rtsp://127.0.0.1:${port}${prefix}${i}`,
    urlWithCredentials: (i) => `rtsp://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}${prefix}${i}`,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}
