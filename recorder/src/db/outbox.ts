// A durable outbox of recordings-table changes: one synced file per change under work_dir/outbox,
// delivered in order when the database answers, deleted only after the commit.
import { mkdir, open, readFile, readdir, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { RecordingRow } from './recordings-repository.js';

export type OutboxEntry = { op: 'insert'; row: RecordingRow } | { op: 'delete'; node_name: string; filename: string };

export interface OutboxOptions {
  workDir: string;
  log: Logger;
  /** Applies a batch in one transaction; throws when the database cannot take it. */
  deliver(entries: OutboxEntry[]): Promise<void>;
  batchSize?: number;
}

export class DurableOutbox {
  readonly #dir: string;
  readonly #opts: OutboxOptions;
  #counter = 0;
  #flushing: Promise<void> | undefined;
  #again = false;
  #failing = false;
  #retryTimer: NodeJS.Timeout | undefined;
  #retryMs = 1000;
  #closed = false;
  #depth = 0;
  #deliveryErrors = 0;

  constructor(opts: OutboxOptions) {
    this.#opts = opts;
    this.#dir = join(opts.workDir, 'outbox');
  }

  /** Entries waiting on disk (for metrics and tests). */
  get depth(): number {
    return this.#depth;
  }

  /** Failed delivery attempts since start (for metrics: a database that refuses rows). */
  get deliveryErrors(): number {
    return this.#deliveryErrors;
  }

  async open(): Promise<void> {
    await mkdir(this.#dir, { recursive: true });
    this.#depth = (await this.#pending()).length;
  }

  /** Writes the entry durably (fsync) before resolving, then triggers delivery. */
  async append(entry: OutboxEntry): Promise<void> {
    const name = `${Date.now().toString().padStart(15, '0')}-${String(this.#counter++).padStart(9, '0')}.json`;
    const tmp = join(this.#dir, `.${name}.tmp`);
    const fh = await open(tmp, 'w');
    try {
      await fh.writeFile(JSON.stringify(entry));
      await fh.datasync();
    } finally {
      await fh.close();
    }
    await rename(tmp, join(this.#dir, name));
    this.#depth++;
    this.kick();
  }

  /** Starts a delivery pass (or queues one after the pass in progress). */
  kick(): void {
    if (this.#closed) return;
    if (this.#flushing !== undefined) {
      this.#again = true;
      return;
    }
    this.#flushing = this.#flush().finally(() => {
      this.#flushing = undefined;
      if (this.#again) {
        this.#again = false;
        this.kick();
      }
    });
  }

  /** Resolves when nothing is waiting (tests, shutdown with a reachable database). */
  async drain(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.#flushing === undefined && (await this.#pending()).length === 0) return true;
      this.kick();
      await new Promise((r) => setTimeout(r, 50));
    }
    return false;
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#retryTimer);
  }

  async #pending(): Promise<string[]> {
    return (await readdir(this.#dir).catch(() => [] as string[])).filter((n) => n.endsWith('.json') && !n.startsWith('.')).sort();
  }

  async #flush(): Promise<void> {
    clearTimeout(this.#retryTimer);
    const batchSize = this.#opts.batchSize ?? 500;
    try {
      let names = await this.#pending();
      this.#depth = names.length;
      while (names.length > 0 && !this.#closed) {
        const batch = names.slice(0, batchSize);
        const entries: OutboxEntry[] = [];
        for (const name of batch) {
          try {
            entries.push(JSON.parse(await readFile(join(this.#dir, name), 'utf8')) as OutboxEntry);
          } catch (err) {
            this.#opts.log.error({ file: name, err: String(err) }, 'unreadable outbox entry set aside');
            await rename(join(this.#dir, name), join(this.#dir, `.${name}.bad`)).catch(() => undefined);
          }
        }
        await this.#opts.deliver(entries);
        // Only after the commit: a crash before this line replays the batch, which inserts nothing twice.
        for (const name of batch) await unlink(join(this.#dir, name)).catch(() => undefined);
        names = await this.#pending();
        this.#depth = names.length;
      }
      if (this.#failing) this.#opts.log.info('database reachable again; waiting recordings rows delivered');
      this.#failing = false;
      this.#retryMs = 1000;
    } catch (err) {
      this.#deliveryErrors++;
      if (!this.#failing) this.#opts.log.warn({ err: (err as Error).message, waiting: this.#depth }, 'database unreachable; recordings rows wait in the outbox');
      this.#failing = true;
      if (!this.#closed) {
        this.#retryTimer = setTimeout(() => this.kick(), this.#retryMs);
        this.#retryMs = Math.min(30_000, this.#retryMs * 2);
      }
    }
  }
}
