// Reads one play answer as it arrives and hands it on box by box: the init segment, then one fragment at a time, paced.

export interface PlayFetchHandlers {
  /** ftyp + moov, with the wall-clock time (epoch ms) of the stream's time zero. */
  onInit(init: ArrayBuffer, startWallMs: number): void;
  /** One moof + mdat; the next is read once the returned promise settles. */
  onFragment(fragment: ArrayBuffer): Promise<void>;
  /** The answer is complete (the window, or the recording, ended). */
  onEnd(): void;
  onError(message: string, status: number): void;
}

const PACE_MS = 250;

export class PlayFetch {
  readonly #controller = new AbortController();
  readonly #handlers: PlayFetchHandlers;
  /** True while the player holds enough ahead: reading stops, and the recorder waits (TCP backpressure). */
  readonly #holdOff: () => boolean;
  #pending = new Uint8Array(0);
  #gotInit = false;

  constructor(handlers: PlayFetchHandlers, holdOff: () => boolean) {
    this.#handlers = handlers;
    this.#holdOff = holdOff;
  }

  get aborted(): boolean {
    return this.#controller.signal.aborted;
  }

  abort(): void {
    this.#controller.abort();
  }

  /** `headers`: the token (Authorization), never in `url`. */
  async run(url: string, headers: Record<string, string>): Promise<void> {
    try {
      const res = await fetch(url, { headers, signal: this.#controller.signal, cache: 'no-store' });
      if (!res.ok) {
        const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
        this.#handlers.onError(body?.error?.message ?? `HTTP ${res.status}`, res.status);
        return;
      }
      const startWallMs = Number(res.headers.get('Vigil-Start')) * 1000;
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      for (;;) {
        while (this.#holdOff() && !this.aborted) await new Promise((r) => setTimeout(r, PACE_MS));
        if (this.aborted) return;
        const { done, value } = await reader.read();
        if (done) break;
        await this.#take(value, startWallMs);
      }
      if (!this.aborted) this.#handlers.onEnd();
    } catch (err) {
      if (!this.aborted) this.#handlers.onError(`the recording stopped arriving (${String(err)})`, 0);
    }
  }

  /** Splits the bytes into top-level boxes; hands on the init segment and each moof with the mdat after it. */
  async #take(chunk: Uint8Array, startWallMs: number): Promise<void> {
    const joined = new Uint8Array(this.#pending.length + chunk.length);
    joined.set(this.#pending);
    joined.set(chunk, this.#pending.length);
    const view = new DataView(joined.buffer);
    let unit = 0; // where the unit being assembled (init, or moof + mdat) starts
    let at = 0;
    while (at + 8 <= joined.length) {
      let size = view.getUint32(at);
      if (size === 1) {
        if (at + 16 > joined.length) break;
        size = Number(view.getBigUint64(at + 8));
      }
      if (size < 8 || at + size > joined.length) break;
      const type = String.fromCharCode(joined[at + 4] ?? 0, joined[at + 5] ?? 0, joined[at + 6] ?? 0, joined[at + 7] ?? 0);
      if (!this.#gotInit && type === 'moof') {
        this.#gotInit = true;
        this.#handlers.onInit(joined.slice(unit, at).buffer, startWallMs);
        unit = at;
      }
      at += size;
      if (this.#gotInit && type === 'mdat') {
        await this.#handlers.onFragment(joined.slice(unit, at).buffer);
        if (this.aborted) return;
        unit = at;
      }
    }
    this.#pending = joined.slice(unit);
  }
}
