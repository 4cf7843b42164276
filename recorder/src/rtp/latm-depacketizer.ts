// AAC over RTP as MP4A-LATM (RFC 3016 / RFC 6416): audioMuxElements, whole or fragmented, into raw AAC frames.
import { copyBytes } from '../util/byte-copy.js';
import { AacDepacketizerBase } from './aac-depacketizer-base.js';
import { BitCursor, BitsExhaustedError } from './bit-cursor.js';
import { UnsupportedPayloadError, type AudioDepacketizerOptions } from './depacketizer.js';
import { parseStreamMuxConfig, readStreamMuxConfig, type StreamMuxConfig } from './stream-mux-config.js';

/** An audioMuxElement larger than this (fragments of one timestamp piling up) is not AAC: it is dropped as malformed. */
const MAX_ELEMENT_BYTES = 256 * 1024;
const INITIAL_SCRATCH_BYTES = 4096;

/**
 * Why an MP4A-LATM track cannot be depacketized here, or undefined when it can: the SDP must give the StreamMuxConfig
 * (`config=`), whether it is also sent in-band (`cpresent=1`, RFC 3016's default) or not (`cpresent=0`, what GStreamer
 * and ffmpeg send). Without it the init segment could not be written before the first frame.
 */
export function latmUnsupportedReason(fmtp: Record<string, string>): string | undefined {
  const config = fmtp['config']?.trim() ?? '';
  if (config === '') return `MP4A-LATM without config= (cpresent=${fmtp['cpresent']?.trim() ?? '1'}: the configuration only in-band)`;
  try {
    parseStreamMuxConfig(config);
    return undefined;
  } catch (err) {
    if (err instanceof UnsupportedPayloadError) return err.payload;
    throw err;
  }
}

/**
 * One AAC track sent as MP4A-LATM. The SDP's StreamMuxConfig (`config=`) gives the AudioSpecificConfig, the frames per
 * audioMuxElement and the other-data length. Packets of one timestamp are gathered until the marker bit (an element
 * fragmented over packets), then every audioMuxElement in them (several may be concatenated) is read: each frame's
 * PayloadLengthInfo and PayloadMux. Frame n of a packet is timed at the packet's timestamp plus n frame lengths.
 * With `cpresent=1` each element starts with useSameStreamMux; a StreamMuxConfig sent in-band must be the SDP's (a
 * different one is a change the init segment cannot follow: those elements are counted malformed and dropped).
 * A loss drops the element in progress; the packet after a loss is taken only if it ends an element and reads as one
 * whole element by itself.
 */
export class LatmDepacketizer extends AacDepacketizerBase {
  readonly #mux: StreamMuxConfig;
  readonly #muxPresent: boolean;
  #scratch = Buffer.allocUnsafeSlow(INITIAL_SCRATCH_BYTES);
  #used = 0;
  #timestamp = 0;
  #receivedAt = 0;
  /** After a loss: packets are skipped up to the one with the marker (the end of the element the loss broke). */
  #resyncing = false;

  constructor(options: AudioDepacketizerOptions) {
    const fmtp = options.fmtp ?? {};
    const reason = latmUnsupportedReason(fmtp);
    if (reason !== undefined) throw new UnsupportedPayloadError(reason);
    const mux = parseStreamMuxConfig(fmtp['config']?.trim() ?? '');
    const cpresent = fmtp['cpresent']?.trim() ?? '1';
    if (cpresent !== '0' && cpresent !== '1') throw new UnsupportedPayloadError(`MP4A-LATM cpresent=${cpresent}`);
    super(mux.aac, options);
    this.#mux = mux;
    this.#muxPresent = cpresent === '1';
  }

  push(packet: Buffer, receivedAt: number, packetStart = 0, packetEnd: number = packet.length): void {
    const verdict = this.intake.take(packet, receivedAt, packetStart, packetEnd);
    if (verdict === 'ignored') return;
    const header = this.intake.header;
    const start = header.payloadOffset;
    const end = header.payloadEnd;
    if (verdict === 'break') {
      this.#drop();
      this.#resyncing = true;
    } else if (this.#used > 0 && header.timestamp !== this.#timestamp) {
      // The element's last fragment (the one with the marker) never came.
      this.#drop();
    }
    if (this.#resyncing) {
      if (!header.marker) return;
      this.#resyncing = false;
      // Either a whole element or the tail of one whose start was lost. A tail reads as exactly one element by chance
      // only if its first bytes happen to give the rest's length (about 1 in 256); several elements are not trusted.
      const frames = this.#read(packet, start, end);
      if (frames === undefined || frames.length !== this.#mux.framesPerElement) this.stats.droppedUnits++;
      else this.#emit(frames, header.timestamp, receivedAt);
      return;
    }
    if (this.#used === 0) {
      this.#timestamp = header.timestamp;
      this.#receivedAt = receivedAt;
      // The common case, an element in one packet: read straight from the packet.
      if (header.marker) return this.#finish(packet, start, end);
    }
    if (!this.#append(packet, start, end)) return undefined;
    if (header.marker) this.#finish(this.#scratch, 0, this.#used);
    return undefined;
  }

  flush(): void {
    this.#drop();
  }

  reset(): void {
    this.#used = 0;
    this.#resyncing = false;
    this.intake.reset();
  }

  #append(packet: Buffer, start: number, end: number): boolean {
    const needed = this.#used + (end - start);
    if (needed > MAX_ELEMENT_BYTES) {
      this.stats.malformedPackets++;
      this.#drop();
      this.#resyncing = true;
      return false;
    }
    if (needed > this.#scratch.length) {
      const bigger = Buffer.allocUnsafeSlow(Math.min(MAX_ELEMENT_BYTES, Math.max(needed, this.#scratch.length * 2)));
      this.#scratch.copy(bigger, 0, 0, this.#used);
      this.#scratch = bigger;
    }
    this.#used += copyBytes(packet, start, end, this.#scratch, this.#used);
    return true;
  }

  #finish(buf: Buffer, start: number, end: number): void {
    const frames = this.#read(buf, start, end);
    this.#used = 0;
    if (frames === undefined) {
      this.stats.malformedPackets++;
      this.stats.droppedUnits++;
      return;
    }
    this.#emit(frames, this.#timestamp, this.#receivedAt);
  }

  /** The frames of the audioMuxElements filling `buf[start, end)` exactly; undefined when they do not. */
  #read(buf: Buffer, start: number, end: number): Buffer[] | undefined {
    if (end <= start) return undefined;
    const cursor = new BitCursor(buf, start * 8, end * 8);
    const frames: Buffer[] = [];
    try {
      while (cursor.bitsLeft > 0) {
        if (this.#muxPresent && !cursor.flag()) {
          const inBand = readStreamMuxConfig(cursor, 'MP4A-LATM in-band StreamMuxConfig');
          if (!inBand.aac.audioSpecificConfig.equals(this.config.audioSpecificConfig) || inBand.framesPerElement !== this.#mux.framesPerElement) return undefined;
        }
        // Each frame: its PayloadLengthInfo (bytes summed up to the first that is not 255), then its PayloadMux.
        for (let i = 0; i < this.#mux.framesPerElement; i++) {
          let length = 0;
          let part = 255;
          while (part === 255) {
            part = cursor.read(8);
            length += part;
          }
          frames.push(cursor.takeBytes(length));
        }
        cursor.skip(this.#mux.otherDataBits);
        cursor.alignToByte();
      }
    } catch (err) {
      if (err instanceof BitsExhaustedError || err instanceof UnsupportedPayloadError) return undefined;
      throw err;
    }
    return frames;
  }

  #emit(frames: Buffer[], timestamp: number, receivedAt: number): void {
    for (let i = 0; i < frames.length; i++) {
      const data = frames[i] as Buffer;
      if (data.length > 0) this.emitFrame(data, (timestamp + i * this.frameTicks) >>> 0, receivedAt);
    }
  }

  #drop(): void {
    if (this.#used === 0) return;
    this.#used = 0;
    this.stats.droppedUnits++;
  }
}
