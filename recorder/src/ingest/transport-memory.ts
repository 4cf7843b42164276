// Keeps, per camera, the RTSP transport that worked, in work_dir/rtsp-transports/, so a restart asks for it first.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RtspTransport } from './rtsp-transport-choice.js';

/** The camera's address without credentials: what was learnt about one camera must not apply to another. */
function addressKey(source: string): string {
  let address = source;
  try {
    const url = new URL(source);
    address = `${url.protocol}//${url.host}${url.pathname}${url.search}`;
  } catch {
    // Not a URL: keyed by the text itself (hashed, so nothing of it is written).
  }
  return createHash('sha256').update(address).digest('hex');
}

/**
 * One small JSON file per camera, `{"source": <hash of the address>, "transport": "udp"}`; a camera whose address
 * changed starts afresh. Tiny and rare (a write when what works changes), so plain synchronous file calls.
 */
export class TransportMemory {
  readonly #dir: string;

  constructor(workDir: string) {
    this.#dir = join(workDir, 'rtsp-transports');
  }

  recall(cameraId: string, source: string): RtspTransport | undefined {
    try {
      const saved = JSON.parse(readFileSync(join(this.#dir, cameraId), 'utf8')) as { source?: unknown; transport?: unknown };
      if (saved.source !== addressKey(source)) return undefined;
      return saved.transport === 'tcp' || saved.transport === 'udp' ? saved.transport : undefined;
    } catch {
      return undefined;
    }
  }

  /** Throws on a file system error (the caller logs it: losing this costs one refused SETUP after a restart). */
  keep(cameraId: string, source: string, transport: RtspTransport): void {
    mkdirSync(this.#dir, { recursive: true });
    const file = join(this.#dir, cameraId);
    writeFileSync(`${file}.tmp`, JSON.stringify({ source: addressKey(source), transport }));
    renameSync(`${file}.tmp`, file);
  }
}
