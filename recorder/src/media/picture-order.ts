// What the H.264 and H.265 picture order counters share: a picture's order, the parameter sets in force, the POC's high part.
import { BitstreamError } from './bit-reader.js';

/** What the order of one picture is: its POC, and whether it starts a new coded video sequence (an IDR: POCs restart). */
export interface PictureOrder {
  poc: number;
  /** Every picture before it in decoding order is output before it. */
  reset: boolean;
}

/**
 * The SPS and PPSs in force, parsed once per change: `update` with the same buffers costs nothing. An SPS that cannot be
 * read leaves `sps` undefined (no picture's order can be told); a PPS that cannot be read is left out.
 */
export class ParameterSetsInForce<Sps, Pps> {
  #spsSource: Buffer | undefined;
  #sps: Sps | undefined;
  readonly #pps = new Map<number, Pps>();
  #ppsSources: readonly Buffer[] = [];

  constructor(
    private readonly parseSps: (nal: Buffer) => Sps,
    private readonly parsePps: (nal: Buffer) => { ppsId: number; fields: Pps },
  ) {}

  /** The SPS and PPSs in force (raw NAL units, header included). */
  update(sps: Buffer, ppsList: readonly Buffer[]): void {
    if (sps !== this.#spsSource) {
      this.#sps = parsedOrUndefined(() => this.parseSps(sps));
      this.#spsSource = sps;
    }
    if (ppsList !== this.#ppsSources) {
      this.#pps.clear();
      for (const nal of ppsList) {
        const parsed = parsedOrUndefined(() => this.parsePps(nal));
        if (parsed !== undefined) this.#pps.set(parsed.ppsId, parsed.fields);
      }
      this.#ppsSources = ppsList;
    }
  }

  get sps(): Sps | undefined {
    return this.#sps;
  }

  pps(id: number): Pps | undefined {
    return this.#pps.get(id);
  }
}

function parsedOrUndefined<T>(parse: () => T): T | undefined {
  try {
    return parse();
  } catch (err) {
    if (!(err instanceof BitstreamError)) throw err;
    return undefined;
  }
}

/**
 * The high part of a POC (H.264 8.2.1.1, H.265 8.3.1): the previous picture's high part, moved by one cycle of `maxLsb`
 * when the low part wrapped around since (`prevLsb` to `lsb`).
 */
export function pocMsb(prevMsb: number, prevLsb: number, lsb: number, maxLsb: number): number {
  if (lsb < prevLsb && prevLsb - lsb >= maxLsb / 2) return prevMsb + maxLsb;
  if (lsb > prevLsb && lsb - prevLsb > maxLsb / 2) return prevMsb - maxLsb;
  return prevMsb;
}
