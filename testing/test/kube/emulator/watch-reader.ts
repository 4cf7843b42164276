// Test support: reads a watch stream from the emulator line by line, collecting its events.
import { waitUntil } from '../../../src/processes.js';

export interface WatchEvent {
  type: string;
  object: { metadata?: { name?: string; resourceVersion?: string; annotations?: Record<string, string> }; [k: string]: unknown };
}

export interface WatchReader {
  readonly events: WatchEvent[];
  readonly ended: boolean;
  waitFor(pred: (events: WatchEvent[]) => boolean, what: string, timeoutMs?: number): Promise<void>;
  close(): void;
}

export async function openWatch(url: string, token: string, accept?: string): Promise<WatchReader> {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, ...(accept ? { accept } : {}) }, signal: controller.signal });
  if (res.status !== 200 || res.body === null) throw new Error(`watch ${url}: HTTP ${res.status} ${await res.text()}`);
  const events: WatchEvent[] = [];
  let ended = false;
  const decoder = new TextDecoder();
  let buffer = '';
  void (async () => {
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line.trim() !== '') events.push(JSON.parse(line) as WatchEvent);
        }
      }
    } catch {
      // aborted or broken: the test looks at `ended`
    } finally {
      ended = true;
    }
  })();
  return {
    events,
    get ended() {
      return ended;
    },
    waitFor: (pred, what, timeoutMs = 30_000) => waitUntil(() => pred(events), timeoutMs, what, 20),
    close: () => controller.abort(),
  };
}
