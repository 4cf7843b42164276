// The latest VPS/SPS/PPS of a video track, the version that counts their changes, and reading them from the SDP.
import type { ParameterSets } from './access-unit.js';

/** Exp-Golomb ue(v) starting at byte `start`; -1 when it runs past `end` or is implausibly long. */
export function readUe(buf: Buffer, start: number, end: number): number {
  const limit = end * 8;
  let bit = start * 8;
  let zeros = 0;
  while (bit < limit && (((buf[bit >> 3] ?? 0) >> (7 - (bit & 7))) & 1) === 0) {
    if (++zeros > 31) return -1;
    bit++;
  }
  if (bit + zeros >= limit) return -1;
  bit++;
  let value = 0;
  for (let i = 0; i < zeros; i++, bit++) value = value * 2 + (((buf[bit >> 3] ?? 0) >> (7 - (bit & 7))) & 1);
  return 2 ** zeros - 1 + value;
}

/** Base64 NAL units of an SDP list (`sprop-parameter-sets`, `sprop-sps`…), empty entries skipped. */
export function base64Nals(list: string | undefined): Buffer[] {
  if (list === undefined) return [];
  return list
    .split(',')
    .map((item) => Buffer.from(item.trim(), 'base64'))
    .filter((nal) => nal.length > 0);
}

function sameBytes(kept: Buffer | undefined, buf: Buffer, start: number, end: number): boolean {
  return kept !== undefined && kept.length === end - start && kept.compare(buf, start, end) === 0;
}

/**
 * One VPS and one SPS (the latest; cameras use one of each) and the PPSs by pic_parameter_set_id. Parameter sets repeat
 * before every keyframe, so an offered one is compared in place and copied only when it differs. `current` is a new,
 * never-changed object after each change that leaves a complete set (H.264: SPS and a PPS; H.265: also a VPS), and
 * `version` then goes up by one.
 */
export class ParameterSetStore {
  current: ParameterSets | undefined;
  version = 0;
  private vps: Buffer | undefined;
  private sps: Buffer | undefined;
  private readonly pps: Buffer[] = [];
  private readonly ppsIds: number[] = [];

  constructor(private readonly codec: 'h264' | 'h265') {}

  /** `buf[start, end)` is the NAL unit (a view of memory that may be reused); `ppsId` only matters for a PPS. */
  offer(kind: 'vps' | 'sps' | 'pps', buf: Buffer, start: number, end: number, ppsId = -1): void {
    if (kind === 'vps') {
      if (sameBytes(this.vps, buf, start, end)) return;
      this.vps = Buffer.from(buf.subarray(start, end));
    } else if (kind === 'sps') {
      if (sameBytes(this.sps, buf, start, end)) return;
      this.sps = Buffer.from(buf.subarray(start, end));
    } else {
      const at = this.ppsIds.indexOf(ppsId);
      if (at >= 0 && sameBytes(this.pps[at], buf, start, end)) return;
      const copy = Buffer.from(buf.subarray(start, end));
      if (at >= 0) this.pps[at] = copy;
      else {
        this.ppsIds.push(ppsId);
        this.pps.push(copy);
      }
    }
    if (this.sps === undefined || this.pps.length === 0 || (this.codec === 'h265' && this.vps === undefined)) return;
    this.current = { codec: this.codec, ...(this.vps !== undefined ? { vps: this.vps } : {}), sps: this.sps, pps: [...this.pps] };
    this.version++;
  }
}
