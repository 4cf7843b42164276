// Test support: Debian's rtsp-server-perl (an RTSP server nobody here wrote) relaying a live stream that ffmpeg publishes to it.
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { FixtureProcess, waitForFixture } from './fixture-process.js';
import { freePort } from './net.js';
import { describeOnce } from './rtsp-test-client.js';

export interface PerlRtspServerOptions {
  /** Mount path, default '/live'. */
  path?: string;
  width?: number;
  height?: number;
  fps?: number;
  /** Pictures between keyframes (default fps: one a second). */
  gop?: number;
  /** A 440 Hz AAC-LC track (48 kHz mono) beside the H.264 video (default false). */
  audio?: boolean;
  /**
   * Start publishing at once (default true). false: the server runs without its stream (a DESCRIBE of the mount answers
   * 404 Not Found, as after a restart before its publisher is back) until `publish()`.
   */
  publish?: boolean;
}

export interface PerlRtspServer {
  /** rtsp://127.0.0.1:PORT/path, where clients read. */
  readonly url: string;
  readonly port: number;
  /** The ffmpeg process that publishes the stream (its pid, for tests that look at processes). */
  readonly publisherPid: number | undefined;
  /** Starts the publisher (when started with publish: false); resolves once a DESCRIBE of the mount answers 200. */
  publish(): Promise<void>;
  stop(): Promise<void>;
}

const SCRIPT = fileURLToPath(new URL('../../fixtures/rtsp_server_perl.pl', import.meta.url));
const FFMPEG = process.env['VIGIL_TEST_FFMPEG'] ?? 'ffmpeg';
const ATTEMPTS = 5;
const READY_MS = 20_000;

/**
 * Starts `rtsp_server_perl.pl` on fresh loopback ports and an ffmpeg that encodes a test pattern (H.264 baseline, no
 * B-frames, optional AAC) and publishes it with ANNOUNCE/RECORD over UDP; resolves once a DESCRIBE of the mount answers
 * 200. The server serves RTP over UDP only: a SETUP asking for interleaved TCP is answered 400 Bad Request.
 */
export async function startPerlRtspServer(opts: PerlRtspServerOptions = {}): Promise<PerlRtspServer> {
  const path = opts.path ?? '/live';
  const fps = opts.fps ?? 25;
  let lastError: unknown;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const [clientPort, sourcePort] = [await freePort(), await freePort()];
    // The server takes UDP ports upwards from here for every stream it relays and every client: far apart per instance.
    const rtpStart = 20_000 + 2 * randomInt(0, 15_000);
    const server = new FixtureProcess('/usr/bin/perl', [SCRIPT, String(clientPort), String(sourcePort), String(rtpStart)]);
    const publisher = { proc: undefined as FixtureProcess | undefined };
    const stop = async (): Promise<void> => {
      await publisher.proc?.stop();
      await server.stop();
    };
    const url = `rtsp://127.0.0.1:${clientPort}${path}`;
    const publish = async (): Promise<void> => {
      if (publisher.proc !== undefined) return;
      const video = `testsrc2=size=${opts.width ?? 320}x${opts.height ?? 180}:rate=${fps}`;
      const args = ['-hide_banner', '-nostdin', '-loglevel', 'warning', '-re', '-f', 'lavfi', '-i', video];
      if (opts.audio === true) args.push('-re', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000');
      args.push(
        '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-profile:v', 'baseline', '-pix_fmt', 'yuv420p',
        '-g', String(opts.gop ?? fps), '-keyint_min', String(opts.gop ?? fps), '-sc_threshold', '0', '-bf', '0', '-b:v', '400k',
      );
      if (opts.audio === true) args.push('-c:a', 'aac', '-b:a', '64k', '-ac', '1');
      args.push('-f', 'rtsp', '-rtsp_transport', 'udp', `rtsp://127.0.0.1:${sourcePort}${path}`);
      const proc = new FixtureProcess(FFMPEG, args);
      publisher.proc = proc;
      await waitForFixture(proc, async () => (await describeOnce(clientPort, url))?.status === 200, READY_MS, 'the ffmpeg publishing to rtsp-server-perl');
    };
    try {
      await waitForFixture(server, () => /^READY /m.test(server.stdout), READY_MS, 'rtsp-server-perl');
      if (opts.publish !== false) await publish();
      return {
        url,
        port: clientPort,
        get publisherPid() {
          return publisher.proc?.pid;
        },
        publish,
        stop,
      };
    } catch (err) {
      lastError = err;
      await stop();
    }
  }
  throw lastError;
}
