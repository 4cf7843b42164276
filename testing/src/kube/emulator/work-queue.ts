// A de-duplicating queue of keys drained on the next turn of the event loop, so controllers never write from inside a store callback.
export class WorkQueue {
  private readonly pending = new Set<string>();
  private scheduled: NodeJS.Immediate | undefined;
  private stopped = false;

  constructor(private readonly handle: (key: string) => void, private readonly onError: (key: string, err: unknown) => void = () => undefined) {}

  add(key: string): void {
    if (this.stopped) return;
    this.pending.add(key);
    this.scheduled ??= setImmediate(() => this.drain());
  }

  stop(): void {
    this.stopped = true;
    if (this.scheduled !== undefined) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    this.pending.clear();
  }

  private drain(): void {
    this.scheduled = undefined;
    const keys = [...this.pending];
    this.pending.clear();
    for (const key of keys) {
      if (this.stopped) return;
      try {
        this.handle(key);
      } catch (err) {
        this.onError(key, err);
      }
    }
  }
}
