// What the two AAC payload formats (RFC 3640 mpeg4-generic, MP4A-LATM) share: the track's config and clock, packet intake, frame timing and emission.
import type { AudioAccessUnit, DepacketizerStats } from './access-unit.js';
import { emptyStats, PacketIntake, type AacConfig, type AudioDepacketizer, type AudioDepacketizerOptions, type ReceptionReport } from './depacketizer.js';

/**
 * One AAC track. Subclasses read their payload format in `push` (after `intake.take`) and hand every raw AAC frame to
 * `emitFrame`; frame n of a packet is timed at the packet's timestamp plus n times `frameTicks`.
 */
export abstract class AacDepacketizerBase implements AudioDepacketizer {
  readonly kind = 'audio';
  readonly codec = 'aac';
  readonly clockRate: number;
  readonly stats: DepacketizerStats = emptyStats();
  protected readonly intake: PacketIntake;
  /** RTP clock ticks of one frame: given (RFC 3640 `constantduration`), else the frame length at the clock rate. */
  protected readonly frameTicks: number;
  readonly #onUnit: (unit: AudioAccessUnit) => void;

  protected constructor(
    readonly config: AacConfig,
    options: AudioDepacketizerOptions,
    frameTicks?: number,
  ) {
    this.clockRate = options.clockRate ?? config.sampleRate;
    this.frameTicks = frameTicks ?? Math.round((config.frameLength * this.clockRate) / config.sampleRate);
    this.#onUnit = options.onUnit;
    this.intake = new PacketIntake(this.clockRate, this.stats);
  }

  get ssrc(): number | undefined {
    return this.intake.ssrc;
  }

  abstract push(packet: Buffer, receivedAt: number, packetStart?: number, packetEnd?: number): void;
  abstract flush(): void;
  abstract reset(): void;

  receptionReport(): ReceptionReport | undefined {
    return this.intake.report();
  }

  protected emitFrame(data: Buffer, rtpTimestamp: number, receivedAt: number): void {
    this.stats.units++;
    this.#onUnit({ kind: 'audio', codec: 'aac', data, rtpTimestamp, receivedAt });
  }
}
