// Builds the ffmpeg command line that turns one camera source into fragmented MP4 on stdout.
import type { Camera } from '../cameras/camera.js';

export type SourceKind = 'rtsp' | 'testsrc' | 'file';

export function sourceKind(source: string): SourceKind {
  if (/^rtsps?:\/\//i.test(source)) return 'rtsp';
  if (source === 'testsrc' || source.startsWith('testsrc:')) return 'testsrc';
  return 'file';
}

/** `testsrc:` options, e.g. `testsrc:size=1280x720&rate=25&gop=50&bitrate=2000k`. */
export interface TestsrcOptions {
  size: string;
  rate: number;
  gop: number;
  bitrate: string;
}

export function parseTestsrc(source: string): TestsrcOptions {
  const params = new URLSearchParams(source.slice('testsrc:'.length).replace(/^\?/, ''));
  const rate = Number(params.get('rate') ?? 25);
  const size = params.get('size') ?? '1280x720';
  return {
    size: /^\d{2,5}x\d{2,5}$/.test(size) ? size : '1280x720',
    rate: Number.isFinite(rate) && rate > 0 && rate <= 120 ? rate : 25,
    gop: Math.max(1, Math.round(Number(params.get('gop') ?? rate * 2) || 50)),
    bitrate: /^\d+[kM]?$/.test(params.get('bitrate') ?? '') ? (params.get('bitrate') as string) : '2000k',
  };
}

export function filePath(source: string): string {
  return source.startsWith('file:') ? source.slice('file:'.length).replace(/^\/\/(?=\/)/, '') : source;
}

export interface FfmpegArgOptions {
  /** Fragment duration in microseconds (the live latency floor). */
  fragmentMicros: number;
  /** False once ffmpeg refused the camera's audio codec in MP4: record video only. */
  audioAllowed: boolean;
  /**
   * For an RTSP source: the URL ffmpeg reads (the credential relay's, never the camera's own: a command line is
   * readable by every local user) and the transport to ask for. Without it the camera's URL is used as it is.
   */
  rtsp?: { inputUrl: string; transport: 'tcp' | 'udp' };
}

export function buildIngestArgs(camera: Camera, opts: FfmpegArgOptions): string[] {
  const args = ['-hide_banner', '-nostdin', '-loglevel', 'warning'];
  const kind = sourceKind(camera.source);
  let audio = opts.audioAllowed && camera.audio !== 'off';
  if (kind === 'rtsp') {
    const transport = opts.rtsp?.transport ?? (camera.rtspTransport === 'udp' ? 'udp' : 'tcp');
    // No frame-rate probing: with the codec parameters known (SDP or the first keyframe) ffmpeg starts at once, about a
    // second sooner after every reconnect; a copy into MP4 takes its times from RTP, not from a guessed rate.
    args.push('-rtsp_transport', transport, '-timeout', '5000000', '-fpsprobesize', '0', '-i', opts.rtsp?.inputUrl ?? camera.source);
  } else if (kind === 'file') {
    args.push('-re', '-stream_loop', '-1', '-i', filePath(camera.source));
  } else {
    const t = parseTestsrc(camera.source);
    args.push('-re', '-f', 'lavfi', '-i', `testsrc2=size=${t.size}:rate=${t.rate}`);
    audio = false;
    args.push(
      '-c:v', 'libx264', '-preset', 'veryfast', '-tune', 'zerolatency', '-profile:v', 'main',
      '-pix_fmt', 'yuv420p', '-g', String(t.gop), '-keyint_min', String(t.gop), '-sc_threshold', '0',
      '-b:v', t.bitrate,
    );
  }
  args.push('-map', '0:v:0');
  if (kind !== 'testsrc') args.push('-c:v', 'copy');
  if (audio) {
    args.push('-map', '0:a:0?', '-c:a', camera.audio === 'transcode' ? 'aac' : 'copy');
  }
  args.push(
    // Names the camera in the process list (ps), so an operator can tell the ffmpegs apart.
    '-metadata', `comment=vigil-camera=${camera.id}`,
    '-f', 'mp4',
    '-movflags', 'frag_keyframe+empty_moov+default_base_moof+skip_trailer',
    '-frag_duration', String(opts.fragmentMicros),
    'pipe:1',
  );
  return args;
}

/** ffmpeg's words when the MP4 muxer cannot carry the camera's audio codec (e.g. G.711). */
export function isUnsupportedAudioError(stderrLine: string): boolean {
  return /codec not currently supported in container|Could not find tag for codec/i.test(stderrLine);
}
