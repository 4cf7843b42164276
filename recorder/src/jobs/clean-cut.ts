// Where an export's last file may end without a hole, when the camera sends B-frames.
import { runFfprobe } from './ffprobe.js';

/** One video packet as the MP4 demuxer hands it out (seconds of the file's own time), in decode order. */
export interface VideoPacket {
  pts: number;
  dts: number;
}

/**
 * The concat demuxer's `outpoint` ends a file at the first packet whose *decode* time reaches it. With B-frames a
 * picture shown after `to` can decode before one shown just before it: a cut at `to` then keeps a P picture past the
 * end and drops the B pictures that show before it — a hole of a picture or two at the export's end.
 *
 * Returns the decode time to cut at so that the kept packets are exactly the pictures shown up to some moment at or
 * after `toSeconds`: the first packet (in decode order) from which on every picture shows at or after `toSeconds`, and
 * after every picture before it. Without B-frames (pictures shown in decode order) that is `toSeconds` itself.
 * Undefined: no such cut inside the file; keep it whole.
 */
export function cleanOutpoint(packets: readonly VideoPacket[], toSeconds: number): number | undefined {
  const inOrder = packets.every((p, i) => i === 0 || p.pts > (packets[i - 1] as VideoPacket).pts);
  if (inOrder) return toSeconds;
  // The earliest presentation from each packet on.
  const laterMin: number[] = new Array<number>(packets.length + 1).fill(Number.POSITIVE_INFINITY);
  for (let i = packets.length - 1; i >= 0; i--) laterMin[i] = Math.min((packets[i] as VideoPacket).pts, laterMin[i + 1] as number);
  let shownBefore = Number.NEGATIVE_INFINITY;
  for (const [k, packet] of packets.entries()) {
    const rest = laterMin[k] as number;
    if (rest >= toSeconds && shownBefore < rest) return packet.dts;
    shownBefore = Math.max(shownBefore, packet.pts);
  }
  return undefined;
}

/** The file's video packets (ffprobe beside the media tool); undefined when they cannot be read. */
export async function probeVideoPackets(mediaTool: string, file: string): Promise<VideoPacket[] | undefined> {
  const stdout = await runFfprobe(mediaTool, ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'packet=pts_time,dts_time', '-of', 'json', file], 32 * 1024 * 1024);
  if (stdout === undefined) return undefined;
  try {
    const parsed = JSON.parse(stdout) as { packets?: Array<{ pts_time?: string; dts_time?: string }> };
    const packets = (parsed.packets ?? []).map((p) => ({ pts: Number(p.pts_time), dts: Number(p.dts_time) }));
    return packets.length > 0 && packets.every((p) => Number.isFinite(p.pts) && Number.isFinite(p.dts)) ? packets : undefined;
  } catch {
    return undefined;
  }
}
