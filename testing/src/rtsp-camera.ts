// Test support: starts and stops the real RTSP camera fixture (testing/fixtures/rtsp_camera.py) as a child process.
import { spawn, type ChildProcess } from 'node:child_process';
import { Socket } from 'node:net';
import { startOnFreshPort } from './net.js';
import { fileURLToPath } from 'node:url';

export interface RtspCameraOptions {
  path?: string;
  auth?: 'none' | 'digest' | 'basic';
  user?: string;
  password?: string;
  source?: 'live' | 'file';
  file?: string;
  width?: number;
  height?: number;
  fps?: number;
  gop?: number;
  bitrateKbps?: number;
  port?: number;
  // Codec options, for `source: 'live'` only (the fixture refuses them with a file source). Left out, the
  // camera is the original one: H.264 constrained-baseline, no B-frames, no audio.
  /**
   * Video codec, RTP payload type 96. 'h264' (default): x264enc ! rtph264pay. 'h265': x265enc
   * tune=zerolatency speed-preset=ultrafast, caps profile=main, rtph265pay (config-interval=1); no
   * B-frames unless `bframes` > 0 (then x265's bframes, b-adapt=0, no pyramid, closed GOPs); `profile`
   * is refused with it.
   */
  codec?: 'h264' | 'h265';
  /**
   * H.264 profile, forced through x264enc's output caps. 'baseline' (default unless `bframes` > 0): caps
   * profile=constrained-baseline, tune=zerolatency speed-preset=ultrafast, as always. 'main' and 'high':
   * caps profile=main|high with speed-preset=superfast (CABAC on; 8x8 transform on for high). Defaults to
   * 'main' when `bframes` > 0; 'baseline' together with `bframes` > 0 is refused.
   */
  profile?: 'baseline' | 'main' | 'high';
  /**
   * B-frames between reference frames (default 0). H.265: see `codec`. H.264: above 0 the encoder runs without
   * tune=zerolatency (which forces 0 B-frames), with b-adapt=false and b-pyramid=false, so every GOP
   * carries exactly this many B-frames between P-frames: PTS differs from DTS and the RTP timestamps
   * (taken from PTS) go back and forth. Needs profile 'main' or 'high' (picked as 'main' when `profile`
   * is left out).
   */
  bframes?: number;
  /**
   * A second stream (a 440 Hz sine) in the same RTSP session. 'none' (default): video only. 'aac':
   * 48000 Hz mono AAC-LC 64 kbit/s (voaacenc), RTP mpeg4-generic (rtpmp4gpay), payload type 97.
   * 'latm': the same AAC as RFC 3016 MP4A-LATM (rtpmp4apay, cpresent=0), payload type 97.
   * 'pcmu': 8000 Hz mono G.711 mu-law (rtppcmupay), static payload type 0.
   */
  audio?: 'none' | 'aac' | 'latm' | 'pcmu';
  /**
   * Moves every picture's (and audio frame's, by half as much) timestamp by up to this many ms either way, as cameras
   * that stamp by capture time do: RTP timestamps that step unevenly. Live source without B-frames only; at most a
   * third of the picture interval.
   */
  jitterMs?: number;
}

/** The codec options given to startRtspCamera; only those that were set are passed to the fixture. */
type CodecOptions = Pick<RtspCameraOptions, 'codec' | 'profile' | 'bframes' | 'audio' | 'jitterMs'>;

export interface RtspCamera {
  readonly port: number;
  /** rtsp://127.0.0.1:PORT/path, without credentials. */
  readonly url: string;
  /** The URL with credentials (URL-encoded); defaults to the configured user and password. */
  urlWithCredentials(user?: string, password?: string): string;
  readonly pid: number | undefined;
  /** SIGTERM, then SIGKILL after 3 s; resolves once the process has exited. Idempotent. */
  stop(): Promise<void>;
  /** (Re)starts on the same port; resolves after READY. A no-op while running. */
  start(): Promise<void>;
}

/** The compiled file lives in testing/dist/src/, the fixture in testing/fixtures/. */
const FIXTURE = fileURLToPath(new URL('../../fixtures/rtsp_camera.py', import.meta.url));
/** python3-gi is installed for the system python only, not for a pyenv one on PATH. */
const PYTHON = process.env['VIGIL_TEST_PYTHON'] ?? '/usr/bin/python3';
const FFMPEG = process.env['VIGIL_TEST_FFMPEG'] ?? 'ffmpeg';

const READY_TIMEOUT_MS = 15_000;
const KILL_GRACE_MS = 3_000;
/** rtsp_camera.py's exit code when its port is taken. */
const EXIT_PORT_IN_USE = 3;
const FRESH_PORT_ATTEMPTS = 5;
const SAME_PORT_ATTEMPTS = 20;
const SAME_PORT_RETRY_MS = 250;
const STDERR_TAIL_BYTES = 8_192;

const DEFAULT_USER = 'admin';
const DEFAULT_PASSWORD = 'secret';

/** Every fixture process still alive; SIGKILLed when this process exits. */
const liveProcesses = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of liveProcesses) {
      try {
        child.kill('SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });
}

class StartError extends Error {
  constructor(
    message: string,
    readonly portInUse: boolean,
  ) {
    super(message);
    this.name = 'StartError';
  }
}

export interface Spawned {
  child: ChildProcess;
  port: number;
}

type FixtureSettings = Required<Omit<RtspCameraOptions, 'port' | 'file' | keyof CodecOptions>> & { file?: string } & CodecOptions;

function fixtureArgs(port: number, o: FixtureSettings): string[] {
  const args = [
    FIXTURE,
    '--port', String(port),
    '--path', o.path,
    '--auth', o.auth,
    '--user', o.user,
    '--password', o.password,
    '--source', o.source,
    '--width', String(o.width),
    '--height', String(o.height),
    '--fps', String(o.fps),
    '--gop', String(o.gop),
    '--bitrate-kbps', String(o.bitrateKbps),
    '--watch-stdin',
  ];
  if (o.file !== undefined) args.push('--file', o.file);
  if (o.codec !== undefined) args.push('--codec', o.codec);
  if (o.profile !== undefined) args.push('--profile', o.profile);
  if (o.bframes !== undefined) args.push('--bframes', String(o.bframes));
  if (o.audio !== undefined) args.push('--audio', o.audio);
  if (o.jitterMs !== undefined) args.push('--jitter-ms', String(o.jitterMs));
  return args;
}

/** Spawns a GStreamer fixture (args[0] is its script) on `port` and waits for its READY line. */
export function spawnRtspFixture(args: string[], port: number): Promise<Spawned> {
  installExitHook();
  return new Promise<Spawned>((resolve, reject) => {
    // stdin stays an open pipe: the fixture exits on its EOF, i.e. when this process dies.
    const child = spawn(PYTHON, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    liveProcesses.add(child);
    let stderr = '';
    let stdout = '';
    let settled = false;
    const stderrTail = (): string => stderr.trim();

    const settle = (err: Error | undefined, bound?: number): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err !== undefined) {
        reject(err);
        return;
      }
      // Don't let a forgotten fixture keep the test process alive; the exit hook kills it.
      child.unref();
      for (const stream of [child.stdin, child.stdout, child.stderr]) {
        if (stream instanceof Socket) stream.unref();
      }
      resolve({ child, port: bound ?? port });
    };

    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      settle(new StartError(`rtsp fixture ${args[0] ?? ''} not READY within ${READY_TIMEOUT_MS} ms; stderr:\n${stderrTail()}`, false));
    }, READY_TIMEOUT_MS);

    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL_BYTES);
    });
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      if (settled) return;
      stdout += chunk;
      const match = /^READY (\d+)$/m.exec(stdout);
      if (match?.[1] !== undefined) settle(undefined, Number(match[1]));
    });
    child.stdin?.on('error', () => {
      // EPIPE once the fixture is gone; nothing to do.
    });
    child.on('error', (err) => {
      liveProcesses.delete(child);
      settle(new StartError(`cannot run ${PYTHON} ${args[0] ?? ''}: ${err.message}`, false));
    });
    child.on('exit', (code, signal) => {
      liveProcesses.delete(child);
      settle(
        new StartError(
          `rtsp fixture ${args[0] ?? ''} exited before READY (code ${code ?? 'null'}, signal ${signal ?? 'null'}); stderr:\n${stderrTail()}`,
          code === EXIT_PORT_IN_USE,
        ),
      );
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

class Camera implements RtspCamera {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private stopping: Promise<void> | undefined;
  private starting: Promise<void> | undefined;
  readonly path: string;

  constructor(
    private readonly args: (port: number) => string[],
    private currentPort: number,
    path: string,
    private readonly user: string,
    private readonly password: string,
  ) {
    this.path = path;
  }

  get port(): number {
    return this.currentPort;
  }

  get url(): string {
    return `rtsp://127.0.0.1:${this.currentPort}${this.path}`;
  }

  urlWithCredentials(user: string = this.user, password: string = this.password): string {
    return `rtsp://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${this.currentPort}${this.path}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Takes ownership of a READY process. */
  adopt(spawned: Spawned): void {
    const { child } = spawned;
    this.child = child;
    this.currentPort = spawned.port;
    this.exited =
      child.exitCode !== null || child.signalCode !== null
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            child.once('exit', () => {
              liveProcesses.delete(child);
              if (this.child === child) this.child = undefined;
              resolve();
            });
          });
    if (child.exitCode !== null || child.signalCode !== null) this.child = undefined;
  }

  start(): Promise<void> {
    this.starting ??= this.doStart().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async doStart(): Promise<void> {
    if (this.stopping !== undefined) await this.stopping;
    if (this.child !== undefined) return;
    let lastError: unknown;
    for (let attempt = 0; attempt < SAME_PORT_ATTEMPTS; attempt++) {
      try {
        this.adopt(await spawnRtspFixture(this.args(this.currentPort), this.currentPort));
        return;
      } catch (err) {
        lastError = err;
        if (!(err instanceof StartError) || !err.portInUse) throw err;
        await sleep(SAME_PORT_RETRY_MS);
      }
    }
    throw lastError;
  }

  stop(): Promise<void> {
    this.stopping ??= this.doStop().finally(() => {
      this.stopping = undefined;
    });
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    if (this.starting !== undefined) await this.starting.catch(() => undefined);
    const child = this.child;
    if (child === undefined) return;
    const exited = this.exited;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
    try {
      await exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Starts an RTSP camera fixture; resolves once it is listening. */
export async function startRtspCamera(opts: RtspCameraOptions = {}): Promise<RtspCamera> {
  const source = opts.source ?? 'live';
  if (source === 'file' && opts.file === undefined) throw new Error('startRtspCamera: source "file" needs opts.file');
  const rawPath = opts.path ?? '/cam';
  const path = rawPath.startsWith('/') ? rawPath : `/${rawPath}`;
  const user = opts.user ?? DEFAULT_USER;
  const password = opts.password ?? DEFAULT_PASSWORD;
  const settings: FixtureSettings = {
    path,
    auth: opts.auth ?? 'none',
    user,
    password,
    source,
    width: opts.width ?? 640,
    height: opts.height ?? 360,
    fps: opts.fps ?? 25,
    gop: opts.gop ?? 25,
    bitrateKbps: opts.bitrateKbps ?? 1000,
    ...(opts.file !== undefined ? { file: opts.file } : {}),
    ...(opts.codec !== undefined ? { codec: opts.codec } : {}),
    ...(opts.profile !== undefined ? { profile: opts.profile } : {}),
    ...(opts.bframes !== undefined ? { bframes: opts.bframes } : {}),
    ...(opts.audio !== undefined ? { audio: opts.audio } : {}),
    ...(opts.jitterMs !== undefined ? { jitterMs: opts.jitterMs } : {}),
  };
  const args = (port: number): string[] => fixtureArgs(port, settings);

  if (opts.port !== undefined) {
    const camera = new Camera(args, opts.port, path, user, password);
    await camera.start();
    return camera;
  }

  return startOnFreshPort(
    async (port) => {
      const spawned = await spawnRtspFixture(args(port), port);
      const camera = new Camera(args, spawned.port, path, user, password);
      camera.adopt(spawned);
      return camera;
    },
    (err) => err instanceof StartError && err.portInUse,
    FRESH_PORT_ATTEMPTS,
  );
}

/**
 * Pre-encodes a loop file for `source: 'file'`: an Annex-B H.264 elementary stream from lavfi testsrc2,
 * libx264 without B-frames, an IDR every `gop` frames (and at the start), SPS/PPS before every IDR.
 */
export async function encodeLoopFile(
  path: string,
  opts: { width: number; height: number; fps: number; gop: number; bitrateKbps: number; seconds: number },
): Promise<void> {
  const frames = Math.max(1, Math.round(opts.seconds * opts.fps));
  const rate = `${opts.bitrateKbps}k`;
  const args = [
    '-hide_banner', '-nostdin', '-v', 'error', '-y',
    '-f', 'lavfi', '-i', `testsrc2=size=${opts.width}x${opts.height}:rate=${opts.fps}`,
    '-frames:v', String(frames),
    '-c:v', 'libx264', '-preset', 'veryfast', '-profile:v', 'baseline', '-pix_fmt', 'yuv420p',
    '-bf', '0', '-g', String(opts.gop), '-keyint_min', String(opts.gop), '-sc_threshold', '0',
    '-b:v', rate, '-maxrate', rate, '-bufsize', rate,
    '-x264-params', 'repeat-headers=1',
    '-f', 'h264', path,
  ];
  const child = spawn(FFMPEG, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL_BYTES);
  });
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (c: number | null, s: NodeJS.Signals | null) => resolve([c, s]));
  });
  if (code !== 0) {
    throw new Error(`ffmpeg loop-file encode failed (code ${code ?? 'null'}, signal ${signal ?? 'null'}): ${stderr.trim()}`);
  }
}
