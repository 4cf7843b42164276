// The record_path file system's series: free and total bytes, and the free-space floor retention keeps (min_free_percent).
import { Gauge, type Registry } from 'prom-client';

/** Free (for unprivileged writers) and total bytes of the record_path file system. */
export interface DiskSpace {
  totalBytes: number;
  freeBytes: number;
}

/** The floor retention deletes down to: min_free_percent of the file system, rounded up as retention does. */
export function retentionFloorBytes(space: DiskSpace, minFreePercent: number): number {
  return Math.ceil((minFreePercent * space.totalBytes) / 100);
}

export function registerRecordPathSeries(registry: Registry, readSpace: () => Promise<DiskSpace>, minFreePercent: number): void {
  // One statfs per scrape serves the three gauges; a failing one (record_path gone) keeps their last readings.
  let reading: Promise<DiskSpace | undefined> | undefined;
  const space = (): Promise<DiskSpace | undefined> => {
    reading ??= readSpace().catch(() => undefined).finally(() => setImmediate(() => (reading = undefined)));
    return reading;
  };
  const gauge = (name: string, help: string, value: (s: DiskSpace) => number): void => {
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const s = await space();
        if (s !== undefined) this.set(value(s));
      },
    });
  };
  gauge('vigil_record_path_free_bytes', 'Free bytes on the file system holding record_path', (s) => s.freeBytes);
  gauge('vigil_record_path_size_bytes', 'Size in bytes of the file system holding record_path', (s) => s.totalBytes);
  gauge('vigil_retention_min_free_bytes', 'Free bytes retention keeps on record_path (min_free_percent of its size): below it the oldest segments are deleted', (s) => retentionFloorBytes(s, minFreePercent));
}
