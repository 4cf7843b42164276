// Shared steps of the playback tests: fetching bytes, checking they are whole MP4 boxes, reading a stream's packets.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Fetched {
  status: number;
  headers: Headers;
  body: Buffer;
}

export async function fetchBytes(url: string, token: string | undefined, headers: Record<string, string> = {}, timeoutMs = 60_000): Promise<Fetched> {
  const res = await fetch(url, { headers: { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...headers }, signal: AbortSignal.timeout(timeoutMs) });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

/** The top-level box types of `buf`; throws unless the boxes end exactly where the bytes do (no partial box). */
export function wholeBoxes(buf: Buffer): string[] {
  const types: string[] = [];
  let at = 0;
  while (at < buf.length) {
    if (at + 8 > buf.length) throw new Error(`a partial box header at ${at} of ${buf.length}`);
    let size = buf.readUInt32BE(at);
    if (size === 1) size = Number(buf.readBigUInt64BE(at + 8));
    if (size < 8) throw new Error(`a box of size ${size} at ${at}`);
    if (at + size > buf.length) throw new Error(`a partial ${buf.toString('latin1', at + 4, at + 8)} box at ${at}: ${size} bytes, ${buf.length - at} there`);
    types.push(buf.toString('latin1', at + 4, at + 8));
    at += size;
  }
  return types;
}

export interface VideoPacket {
  pts: number;
  dts: number;
  duration: number;
  keyframe: boolean;
}

/** The video packets of a file as ffprobe reads them, in file order. */
export async function videoPackets(path: string): Promise<VideoPacket[]> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'packet=pts_time,dts_time,duration_time,flags', '-of', 'csv=p=0', path], { maxBuffer: 64 * 1024 * 1024 });
  return stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((line) => {
      const [pts = '', dts = '', duration = '', flags = ''] = line.split(',');
      return { pts: Number(pts), dts: Number(dts), duration: Number(duration), keyframe: flags.includes('K') };
    });
}

/** The largest step between consecutive presentation times, and where it is. */
export function largestStep(packets: readonly VideoPacket[]): { seconds: number; at: number } {
  const pts = packets.map((p) => p.pts).sort((a, b) => a - b);
  let best = { seconds: 0, at: 0 };
  for (let i = 1; i < pts.length; i++) {
    const step = (pts[i] as number) - (pts[i - 1] as number);
    if (step > best.seconds) best = { seconds: step, at: pts[i - 1] as number };
  }
  return best;
}
