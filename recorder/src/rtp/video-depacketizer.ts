// Access-unit assembly shared by the H.264 and H.265 depacketizers: unit boundaries, loss rules, NAL copying, parameter sets.
import { copyBytes } from '../util/byte-copy.js';
import type { DepacketizerStats, ParameterSets, VideoAccessUnit } from './access-unit.js';
import { emptyStats, PacketIntake, type ReceptionReport, type VideoDepacketizer, type VideoDepacketizerOptions } from './depacketizer.js';
import { ParameterSetStore } from './parameter-set-store.js';

/** What a NAL unit is to the assembler; the codec's `classify` says. */
export const NAL_DROP = 0;
/** Kept in the unit, but not a picture by itself (SEI, end of sequence…). */
export const NAL_OTHER = 1;
export const NAL_SLICE = 2;
/** A slice of an IDR (H.264) or IRAP (H.265) picture. */
export const NAL_KEY_SLICE = 3;
export const NAL_VPS = 4;
export const NAL_SPS = 5;
export const NAL_PPS = 6;
/** Forbidden bit set, or a payload-format type where a NAL unit belongs: the unit it is in is broken. */
export const NAL_INVALID = 7;

const INITIAL_SCRATCH_BYTES = 64 * 1024;
/** A unit this large is a stream that never ends its units (no marker, no timestamp change): break it off. */
const MAX_UNIT_BYTES = 32 * 1024 * 1024;

/**
 * The assembler. Subclasses parse their payload format in `depacketize` and hand NAL units over with `addNal` (whole,
 * from the packet) or `beginFragment`/`appendFragment`/`endFragment` (reassembled). NAL units are copied once into a
 * scratch buffer that lives as long as the depacketizer; an emitted unit's NAL units are views of it, valid only
 * while `onUnit` runs.
 */
export abstract class VideoDepacketizerBase implements VideoDepacketizer {
  readonly kind = 'video';
  readonly clockRate: number;
  readonly stats: DepacketizerStats = emptyStats();
  private readonly onUnit: (unit: VideoAccessUnit) => void;
  private readonly intake: PacketIntake;
  private scratch = Buffer.allocUnsafeSlow(INITIAL_SCRATCH_BYTES);
  private used = 0;
  /**
   * Where each NAL unit of the unit in progress ends in `scratch`: the first `nalCount` entries. Kept between units,
   * not truncated: emptying an array frees its storage, and the next push allocates it again.
   */
  private readonly nalEnds: number[] = [];
  private nalCount = 0;
  private fragmentStart = -1;
  private unitOpen = false;
  private unitBroken = false;
  private unitTimestamp = 0;
  private unitReceivedAt = 0;
  private unitHasSlice = false;
  private unitKeyframe = false;
  private waitingForKeyframe = true;
  private readonly sets: ParameterSetStore;

  protected constructor(
    readonly codec: 'h264' | 'h265',
    options: VideoDepacketizerOptions,
  ) {
    this.clockRate = options.clockRate ?? 90_000;
    this.onUnit = options.onUnit;
    this.intake = new PacketIntake(this.clockRate, this.stats);
    this.sets = new ParameterSetStore(codec);
  }

  get parameterSets(): ParameterSets | undefined {
    return this.sets.current;
  }

  get parameterSetsVersion(): number {
    return this.sets.version;
  }

  get ssrc(): number | undefined {
    return this.intake.ssrc;
  }

  push(packet: Buffer, receivedAt: number, packetStart = 0, packetEnd: number = packet.length): void {
    const verdict = this.intake.take(packet, receivedAt, packetStart, packetEnd);
    if (verdict === 'ignored') return;
    const header = this.intake.header;
    const start = header.payloadOffset;
    const end = header.payloadEnd;
    if (verdict === 'break') {
      if (this.unitOpen) this.breakUnit();
      this.waitingForKeyframe = true;
    }
    if (this.unitOpen && header.timestamp !== this.unitTimestamp) this.finishUnit();
    // After a loss, a new unit is whole only if its first packet starts a picture: what was lost before it is then the
    // previous unit's tail or whole units (dropped or skipped), or non-VCL NAL units of this one (AUD, SEI; parameter
    // sets, for which the ones held stand in). This keeps the keyframe that follows a lost marker packet instead of
    // waiting a whole GOP for the next one.
    if (!this.unitOpen) this.openUnit(header.timestamp, receivedAt, verdict === 'break' && !(end > start && this.startsPicture(packet, start, end)));
    if (!this.unitBroken && end > start) this.depacketize(packet, start, end);
    if (header.marker) this.finishUnit();
  }

  flush(): void {
    this.finishUnit();
  }

  reset(): void {
    this.unitOpen = false;
    this.clearUnit();
    this.waitingForKeyframe = true;
    this.intake.reset();
  }

  receptionReport(): ReceptionReport | undefined {
    return this.intake.report();
  }

  /** One packet's payload, `packet[start, end)`, not empty. */
  protected abstract depacketize(packet: Buffer, start: number, end: number): void;
  /** A `NAL_*` role for the NAL unit `buf[start, end)` (not empty). */
  protected abstract classify(buf: Buffer, start: number, end: number): number;
  /**
   * Whether a payload (not empty) begins an access unit: its first NAL unit (or fragment start) is an AUD, a VPS or
   * SPS, or the first slice of a picture.
   */
  protected abstract startsPicture(packet: Buffer, start: number, end: number): boolean;
  /** The pic_parameter_set_id of a PPS NAL unit, -1 if unreadable. */
  protected abstract ppsId(buf: Buffer, start: number, end: number): number;

  /** A parameter set from the SDP: taken like an in-band one; anything else is ignored. */
  protected addSdpNal(nal: Buffer): void {
    const role = this.classify(nal, 0, nal.length);
    if (role === NAL_VPS || role === NAL_SPS || role === NAL_PPS) this.offerParameterSet(role, nal, 0, nal.length);
  }

  /** A payload the format does not allow here: the unit cannot be trusted any more. */
  protected malformed(): void {
    if (this.unitBroken) return;
    this.stats.malformedPackets++;
    this.breakUnit();
  }

  protected get fragmentOpen(): boolean {
    return this.fragmentStart >= 0;
  }

  protected addNal(buf: Buffer, start: number, end: number): void {
    if (this.unitBroken) return undefined;
    if (end <= start) return this.malformed();
    const role = this.classify(buf, start, end);
    if (role === NAL_DROP) return undefined;
    if (role === NAL_INVALID) return this.malformed();
    if (role === NAL_VPS || role === NAL_SPS || role === NAL_PPS) return this.offerParameterSet(role, buf, start, end);
    if (!this.reserve(end - start)) return undefined;
    this.used += copyBytes(buf, start, end, this.scratch, this.used);
    this.nalEnds[this.nalCount++] = this.used;
    return this.markRole(role);
  }

  /** Starts a fragmented NAL unit with its reconstructed header (`byte1` -1 for H.264's one-byte header). */
  /** STAP-A (H.264) and AP (H.265) share one layout after their header: 16-bit size, NAL unit, repeated. */
  protected aggregate(packet: Buffer, start: number, end: number): void {
    if (this.fragmentOpen) return this.malformed();
    let at = start;
    while (at + 2 <= end) {
      const size = packet.readUInt16BE(at);
      at += 2;
      if (size === 0 || at + size > end) return this.malformed();
      this.addNal(packet, at, at + size);
      at += size;
    }
    // Bytes left that cannot hold a size field: a cut-off packet.
    if (at !== end) this.malformed();
    return undefined;
  }

  protected beginFragment(byte0: number, byte1: number): void {
    if (this.unitBroken) return undefined;
    if (this.fragmentStart >= 0) return this.malformed();
    if (!this.reserve(2)) return undefined;
    this.fragmentStart = this.used;
    this.scratch[this.used++] = byte0;
    if (byte1 >= 0) this.scratch[this.used++] = byte1;
    return undefined;
  }

  protected appendFragment(buf: Buffer, start: number, end: number): void {
    if (this.unitBroken) return undefined;
    if (this.fragmentStart < 0) return this.malformed();
    if (!this.reserve(end - start)) return undefined;
    this.used += copyBytes(buf, start, end, this.scratch, this.used);
    return undefined;
  }

  protected endFragment(): void {
    if (this.unitBroken) return undefined;
    const start = this.fragmentStart;
    if (start < 0) return this.malformed();
    this.fragmentStart = -1;
    const end = this.used;
    const role = this.classify(this.scratch, start, end);
    if (role === NAL_INVALID) return this.malformed();
    if (role === NAL_DROP || role === NAL_VPS || role === NAL_SPS || role === NAL_PPS) {
      this.used = start;
      if (role !== NAL_DROP) this.offerParameterSet(role, this.scratch, start, end);
      return undefined;
    }
    this.nalEnds[this.nalCount++] = end;
    return this.markRole(role);
  }

  private markRole(role: number): void {
    if (role === NAL_SLICE || role === NAL_KEY_SLICE) this.unitHasSlice = true;
    if (role === NAL_KEY_SLICE) this.unitKeyframe = true;
  }

  /** Room for `bytes` more in the scratch buffer; false (unit broken) past the size limit. */
  private reserve(bytes: number): boolean {
    const needed = this.used + bytes;
    if (needed <= this.scratch.length) return true;
    if (needed > MAX_UNIT_BYTES) {
      this.malformed();
      return false;
    }
    let size = this.scratch.length * 2;
    while (size < needed) size *= 2;
    const bigger = Buffer.allocUnsafeSlow(Math.min(size, MAX_UNIT_BYTES));
    this.scratch.copy(bigger, 0, 0, this.used);
    this.scratch = bigger;
    return true;
  }

  private openUnit(timestamp: number, receivedAt: number, broken: boolean): void {
    this.unitOpen = true;
    this.unitTimestamp = timestamp;
    this.unitReceivedAt = receivedAt;
    this.clearUnit();
    if (broken) this.breakUnit();
  }

  /** The unit in progress will be dropped when it ends, and so will every unit after it up to a keyframe. */
  private breakUnit(): void {
    this.clearUnit();
    this.unitBroken = true;
    this.waitingForKeyframe = true;
  }

  private clearUnit(): void {
    this.used = 0;
    this.nalCount = 0;
    this.fragmentStart = -1;
    this.unitBroken = false;
    this.unitHasSlice = false;
    this.unitKeyframe = false;
  }

  private finishUnit(): void {
    if (!this.unitOpen) return;
    this.unitOpen = false;
    // A fragment without its end: the packet that ended it is lost or the sender cut it off.
    if (this.unitBroken || this.fragmentStart >= 0) {
      this.stats.droppedUnits++;
      this.waitingForKeyframe = true;
      return this.clearUnit();
    }
    // Parameter sets or SEI sent with a timestamp of their own: nothing to show.
    if (!this.unitHasSlice) return this.clearUnit();
    if (this.waitingForKeyframe) {
      if (!this.unitKeyframe || this.sets.current === undefined) {
        this.stats.skippedUnits++;
        return this.clearUnit();
      }
      this.waitingForKeyframe = false;
    }
    // Views of the scratch buffer, valid during onUnit only: the muxer copies them straight into the fragment, so a
    // picture costs no allocation of its own here.
    const bytes = this.used;
    const scratch = this.scratch;
    const count = this.nalCount;
    const nalus: Buffer[] = new Array<Buffer>(count);
    let start = 0;
    for (let i = 0; i < count; i++) {
      const end = this.nalEnds[i] as number;
      nalus[i] = scratch.subarray(start, end);
      start = end;
    }
    const keyframe = this.unitKeyframe;
    this.clearUnit();
    this.stats.units++;
    this.onUnit({
      kind: 'video',
      codec: this.codec,
      nalus,
      bytes,
      rtpTimestamp: this.unitTimestamp,
      keyframe,
      receivedAt: this.unitReceivedAt,
      parameterSetsVersion: this.sets.version,
    });
    return undefined;
  }

  private offerParameterSet(role: number, buf: Buffer, start: number, end: number): void {
    if (role === NAL_PPS) this.sets.offer('pps', buf, start, end, this.ppsId(buf, start, end));
    else this.sets.offer(role === NAL_VPS ? 'vps' : 'sps', buf, start, end);
  }
}
