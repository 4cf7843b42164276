// Test support: VLC (an RTSP server nobody here wrote) looping a clip over RTSP, run as an unprivileged user.
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FixtureProcess, waitForFixture } from './fixture-process.js';
import { freePort } from './net.js';
import { describeOnce } from './rtsp-test-client.js';
import { encodeTestClip, type TestClipOptions } from './test-clip.js';

export interface VlcRtspServerOptions extends Partial<TestClipOptions> {
  /** Stream path, default '/vlc'. */
  path?: string;
}

export interface VlcRtspServer {
  readonly url: string;
  readonly port: number;
  /** How long one loop of the clip lasts (seconds): VLC ends the RTP session with an RTCP BYE after each. */
  readonly loopSeconds: number;
  stop(): Promise<void>;
}

const CVLC = '/usr/bin/cvlc';
const ATTEMPTS = 5;
const READY_MS = 20_000;

/**
 * Encodes a clip (default 4 s, 320x180, 25 fps, keyframe every second, no audio) and has VLC 3 serve it in a loop with
 * `--sout '#rtp{sdp=rtsp://127.0.0.1:PORT/path}'`. VLC serves RTP over UDP only (461 Unsupported transport to an
 * interleaved SETUP) and sends RTCP BYE at the end of every loop. VLC refuses to run as root, so as root it runs as
 * `nobody` (setpriv); the clip lives in a directory of its own that nobody can read.
 */
export async function startVlcRtspServer(opts: VlcRtspServerOptions = {}): Promise<VlcRtspServer> {
  const path = opts.path ?? '/vlc';
  const seconds = opts.seconds ?? 4;
  const dir = await mkdtemp(join(tmpdir(), 'vigil-vlc-'));
  const home = join(dir, 'home');
  await mkdir(home);
  const clip = join(dir, 'clip.mp4');
  try {
    await encodeTestClip(clip, { ...opts, seconds });
    await chmod(dir, 0o755);
    await chmod(clip, 0o644);
    await chmod(home, 0o777);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const asRoot = process.getuid?.() === 0;
  let lastError: unknown;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = await freePort();
    const url = `rtsp://127.0.0.1:${port}${path}`;
    const vlc = [CVLC, '-I', 'dummy', '-q', '--no-video-title-show', clip, '--loop', '--sout', `#rtp{sdp=${url}}`];
    const command = asRoot ? ['/usr/bin/setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', '--', ...vlc] : vlc;
    const proc = new FixtureProcess(command[0] as string, command.slice(1), { env: { ...process.env, HOME: home, XDG_CONFIG_HOME: home, XDG_RUNTIME_DIR: home } });
    try {
      // The port could have been taken between the pick and VLC's bind: only VLC's own answer counts.
      await waitForFixture(proc, async () => {
        const answer = await describeOnce(port, url);
        return answer?.status === 200 && /VLC/i.test(answer.headers['server'] ?? '');
      }, READY_MS, 'VLC');
      return {
        url,
        port,
        loopSeconds: seconds,
        stop: async () => {
          await proc.stop();
          await rm(dir, { recursive: true, force: true });
        },
      };
    } catch (err) {
      lastError = err;
      await proc.stop();
    }
  }
  await rm(dir, { recursive: true, force: true });
  throw lastError;
}
