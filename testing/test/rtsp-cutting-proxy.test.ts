// Tests for the cutting RTSP proxy: transparent for ffprobe, and freezeMidPacket() stops a raw RTSP/TCP client inside an interleaved video packet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { startRtspCamera } from '../src/rtsp-camera.js';
import { startRtspCuttingProxy } from '../src/rtsp-cutting-proxy.js';
import { runCommand, type CommandResult } from '../src/command.js';

type RunResult = CommandResult;

function run(cmd: string, args: string[], timeoutMs = 20_000): Promise<RunResult> {
  return runCommand(cmd, args, { timeoutMs });
}

async function probeVideo(url: string): Promise<{ codec_name?: string; width?: number; height?: number }> {
  const result = await run('ffprobe', [
    '-hide_banner', '-v', 'error', '-rtsp_transport', 'tcp',
    '-select_streams', 'v:0', '-show_entries', 'stream=codec_name,width,height', '-of', 'json', url,
  ]);
  assert.equal(result.code, 0, `ffprobe ${url} failed: ${result.stderr}`);
  const parsed = JSON.parse(result.stdout) as { streams?: Array<{ codec_name?: string; width?: number; height?: number }> };
  return parsed.streams?.[0] ?? {};
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

interface RtspResponse {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** A minimal RTSP/TCP client: OPTIONS, DESCRIBE, SETUP (interleaved 0-1) of the first media, PLAY; then it only records bytes. */
class RawRtspClient {
  private readonly chunks: Buffer[] = [];
  private joined = Buffer.alloc(0);
  /** Offset of the first byte not consumed by a response. */
  private consumed = 0;
  private cseq = 0;
  private wake: (() => void) | undefined;
  /** Offset where the data after the PLAY response starts. */
  playStart = 0;
  total = 0;
  ended = false;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.total += chunk.length;
      this.wake?.();
    });
    socket.on('end', () => {
      this.ended = true;
      this.wake?.();
    });
    socket.on('error', () => undefined);
  }

  static async open(port: number): Promise<RawRtspClient> {
    const socket = connect({ port, host: '127.0.0.1' });
    await once(socket, 'connect');
    return new RawRtspClient(socket);
  }

  /** Every byte received so far. */
  bytes(): Buffer {
    if (this.joined.length !== this.total) this.joined = Buffer.concat(this.chunks);
    return this.joined;
  }

  async request(method: string, url: string, headers: Record<string, string> = {}): Promise<RtspResponse> {
    this.cseq += 1;
    const lines = [`${method} ${url} RTSP/1.0`, `CSeq: ${this.cseq}`, 'User-Agent: vigil-raw-test', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    this.socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    const deadline = Date.now() + 10_000;
    while (true) {
      const response = this.parseResponse();
      if (response !== undefined) return response;
      if (this.ended || Date.now() > deadline) throw new Error(`no answer to ${method}`);
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, 200);
      });
    }
  }

  private parseResponse(): RtspResponse | undefined {
    const data = this.bytes();
    const end = data.indexOf('\r\n\r\n', this.consumed, 'latin1');
    if (end < 0) return undefined;
    const head = data.toString('latin1', this.consumed, end).split('\r\n');
    const status = Number(/^RTSP\/1\.0 (\d+)/.exec(head[0] ?? '')?.[1] ?? NaN);
    const headers = new Map<string, string>();
    for (const line of head.slice(1)) {
      const colon = line.indexOf(':');
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const length = Number(headers.get('content-length') ?? 0);
    if (data.length < end + 4 + length) return undefined;
    const body = data.toString('latin1', end + 4, end + 4 + length);
    this.consumed = end + 4 + length;
    return { status, headers, body };
  }

  /** OPTIONS, DESCRIBE, SETUP of the first media over interleaved channels 0-1, PLAY. */
  async play(url: string): Promise<void> {
    assert.equal((await this.request('OPTIONS', url)).status, 200);
    const describe = await this.request('DESCRIBE', url, { Accept: 'application/sdp' });
    assert.equal(describe.status, 200);
    const base = describe.headers.get('content-base') ?? `${url}/`;
    const control = /^m=video[\s\S]*?^a=control:(\S+)/m.exec(describe.body)?.[1];
    assert.ok(control !== undefined, `a video control URL in\n${describe.body}`);
    const setupUrl = control.startsWith('rtsp://') ? control : new URL(control, base).toString();
    const setup = await this.request('SETUP', setupUrl, { Transport: 'RTP/AVP/TCP;unicast;interleaved=0-1' });
    assert.equal(setup.status, 200);
    const session = (setup.headers.get('session') ?? '').split(';')[0] ?? '';
    assert.ok(session !== '');
    const play = await this.request('PLAY', url, { Session: session, Range: 'npt=0.000-' });
    assert.equal(play.status, 200);
    this.playStart = this.consumed;
  }

  async waitForBytes(count: number, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.total < count) {
      if (Date.now() > deadline) throw new Error(`only ${this.total} of ${count} bytes`);
      await sleep(50);
    }
  }

  get open(): boolean {
    return !this.ended && !this.socket.destroyed;
  }

  close(): void {
    this.socket.destroy();
  }
}

interface InterleavedFrame {
  channel: number;
  declared: number;
  payload: Buffer;
}

/**
 * Splits the bytes after the PLAY response into interleaved frames (RTSP messages between them are
 * skipped); throws on anything else. The last frame may be incomplete (payload shorter than declared).
 */
function splitInterleaved(data: Buffer, start: number): InterleavedFrame[] {
  const frames: InterleavedFrame[] = [];
  let off = start;
  while (off < data.length) {
    if (data[off] === 0x24) {
      if (off + 4 > data.length) {
        frames.push({ channel: data[off + 1] ?? -1, declared: -1, payload: Buffer.alloc(0) });
        break;
      }
      const declared = data.readUInt16BE(off + 2);
      frames.push({ channel: data[off + 1] ?? -1, declared, payload: data.subarray(off + 4, Math.min(data.length, off + 4 + declared)) });
      off += 4 + declared;
    } else {
      assert.equal(data.toString('latin1', off, off + 5), 'RTSP/', `offset ${off}: neither an interleaved frame nor an RTSP message`);
      const end = data.indexOf('\r\n\r\n', off, 'latin1');
      assert.ok(end > 0, 'complete RTSP message head');
      const length = Number(/^content-length:\s*(\d+)/im.exec(data.toString('latin1', off, end))?.[1] ?? 0);
      off = end + 4 + length;
    }
  }
  return frames;
}

/** The NAL unit (type) an RTP payload starts with, and the FU start bit for fragmentation units. */
function nal(payload: Buffer, codec: 'h264' | 'h265'): { type: number; fuStart: boolean } {
  const cc = (payload[0] ?? 0) & 0x0f;
  const at = 12 + 4 * cc;
  if (codec === 'h264') {
    return { type: (payload[at] ?? 0) & 0x1f, fuStart: ((payload[at + 1] ?? 0) & 0x80) !== 0 };
  }
  return { type: ((payload[at] ?? 0) >> 1) & 0x3f, fuStart: ((payload[at + 2] ?? 0) & 0x80) !== 0 };
}

test('ffprobe reads a Digest-auth camera through the proxy; the default 640x360 1 Mbit/s stream uses FU-A', async (t) => {
  const camera = await startRtspCamera({ auth: 'digest', user: 'vigil', password: 'p@ss' });
  t.after(() => camera.stop());
  const proxy = await startRtspCuttingProxy({ targetPort: camera.port });
  t.after(() => proxy.close());

  assert.equal(proxy.url('cam'), `rtsp://127.0.0.1:${proxy.port}/cam`);
  assert.equal(proxy.url('/cam', { user: 'vigil', password: 'p@ss' }), `rtsp://vigil:p%40ss@127.0.0.1:${proxy.port}/cam`);
  assert.deepEqual(await probeVideo(proxy.url('/cam', { user: 'vigil', password: 'p@ss' })), { codec_name: 'h264', width: 640, height: 360 });
  assert.ok(proxy.stats.connections >= 1);
  assert.ok(proxy.stats.interleavedFrames > 10, `${proxy.stats.interleavedFrames} interleaved frames`);
  assert.ok(proxy.stats.fuStartFrames > 0, 'video packets start FU-A fragments');
  assert.equal(proxy.stats.frozen, 0);
  assert.equal(proxy.stats.droppedBytes, 0);
});

for (const codec of ['h264', 'h265'] as const) {
  test(`${codec}: freezeMidPacket() stops a playing client inside a fragment-start packet; new connections and resume() work`, async (t) => {
    const camera = await startRtspCamera({ codec, width: 320, height: 180, fps: 25, gop: 25, bitrateKbps: 1000 });
    t.after(() => camera.stop());
    const proxy = await startRtspCuttingProxy({ targetPort: camera.port });
    t.after(() => proxy.close());

    const client = await RawRtspClient.open(proxy.port);
    t.after(() => client.close());
    await client.play(proxy.url('/cam'));
    await client.waitForBytes(client.playStart + 20_000);

    await proxy.freezeMidPacket();
    assert.equal(proxy.stats.frozen, 1);
    await sleep(300);
    const atFreeze = client.total;
    const droppedAtFreeze = proxy.stats.droppedBytes;
    await sleep(1500);
    assert.equal(client.total, atFreeze, 'no byte after the freeze');
    assert.ok(client.open, 'the frozen connection stays open');
    assert.ok(proxy.stats.droppedBytes > droppedAtFreeze, 'the camera keeps sending, the proxy drops it');

    const frames = splitInterleaved(client.bytes(), client.playStart);
    assert.ok(frames.length > 10, `${frames.length} frames before the freeze`);
    const last = frames[frames.length - 1];
    assert.ok(last !== undefined);
    assert.equal(last.channel, 0, 'cut in a video RTP packet');
    assert.ok(last.payload.length < last.declared, `last frame declares ${last.declared} bytes, ${last.payload.length} arrived`);
    assert.equal(last.payload.length, Math.floor(last.declared / 2), 'the first half of the packet');
    const cut = nal(last.payload, codec);
    assert.deepEqual(cut, { type: codec === 'h264' ? 28 : 49, fuStart: true }, 'a fragmentation unit start');
    for (const frame of frames.slice(0, -1)) assert.equal(frame.payload.length, frame.declared, 'earlier frames are whole');

    // A client that reconnects gets a working stream.
    assert.deepEqual(await probeVideo(proxy.url('/cam')), { codec_name: codec === 'h264' ? 'h264' : 'hevc', width: 320, height: 180 });
    assert.equal(proxy.stats.frozen, 1);

    // resume(): the cut packet is completed, then whole frames follow again (after a gap).
    proxy.resume();
    await client.waitForBytes(atFreeze + 20_000);
    const after = splitInterleaved(client.bytes(), client.playStart);
    const resumed = after.slice(frames.length - 1);
    assert.ok(resumed.length > 5, `${resumed.length} frames after resume()`);
    for (const frame of resumed.slice(0, -1)) {
      assert.equal(frame.payload.length, frame.declared);
      assert.equal((frame.payload[0] ?? 0) >> 6, 2, 'an RTP version 2 packet');
    }
    assert.ok(client.open);
  });
}

test('freezeMidPacket() with no connection open waits for the next one; resume() cancels it', async (t) => {
  const camera = await startRtspCamera({ width: 320, height: 180 });
  t.after(() => camera.stop());
  const proxy = await startRtspCuttingProxy({ targetPort: camera.port });
  t.after(() => proxy.close());

  const pending = proxy.freezeMidPacket();
  proxy.resume();
  await assert.rejects(pending, /before freezing/);

  const freezing = proxy.freezeMidPacket({ timeoutMs: 15_000 });
  const client = await RawRtspClient.open(proxy.port);
  t.after(() => client.close());
  await client.play(proxy.url('/cam'));
  await freezing;
  await sleep(300);
  const last = splitInterleaved(client.bytes(), client.playStart).pop();
  assert.ok(last !== undefined && last.payload.length < last.declared);
});
