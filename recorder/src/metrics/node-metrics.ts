// The node metrics record of GET /api/metrics: load, memory and record_path storage, read when asked.
import { statfs } from 'node:fs/promises';
import { availableParallelism, freemem, loadavg, totalmem } from 'node:os';
import { formatIsoWithOffset } from '../util/iso-time.js';

export interface NodeMetricsRecord {
  online: boolean;
  node_name: string;
  /** 1-minute load average as a percentage of all cores (100 = every core busy; can exceed 100). */
  cpu_load: number;
  mem_used_gb: number;
  mem_total_gb: number;
  storage_free_gb: number;
  storage_used_gb: number;
  timestamp: string;
}

/** What the record is computed from; the defaults read the real machine. */
export interface NodeMetricsProbe {
  loadAverage1m(): number;
  cores(): number;
  memory(): { totalBytes: number; freeBytes: number };
  /** Free (for unprivileged writers) and used bytes of the file system holding the path. */
  storage(path: string): Promise<{ freeBytes: number; usedBytes: number }>;
  now(): Date;
}

export const systemProbe: NodeMetricsProbe = {
  loadAverage1m: () => loadavg()[0] ?? 0,
  cores: () => availableParallelism(),
  memory: () => ({ totalBytes: totalmem(), freeBytes: freemem() }),
  storage: async (path) => {
    const s = await statfs(path);
    return { freeBytes: s.bavail * s.bsize, usedBytes: (s.blocks - s.bfree) * s.bsize };
  },
  now: () => new Date(),
};

const GIB = 1024 ** 3;
const gb = (bytes: number): number => Math.max(0, Math.floor(bytes / GIB));

/**
 * A record_path that cannot be measured (missing: an unmounted disk; not a directory; unreadable) gives storage
 * figures of 0 rather than a failed answer: the record says the node is up, and readiness (`recordings_dir`) says
 * what is wrong with the directory.
 */
async function storageOf(recordPath: string, probe: NodeMetricsProbe): Promise<{ freeBytes: number; usedBytes: number }> {
  try {
    return await probe.storage(recordPath);
  } catch {
    return { freeBytes: 0, usedBytes: 0 };
  }
}

export async function readNodeMetrics(nodeName: string, recordPath: string, probe: NodeMetricsProbe = systemProbe): Promise<NodeMetricsRecord> {
  const mem = probe.memory();
  const disk = await storageOf(recordPath, probe);
  return {
    online: true,
    node_name: nodeName,
    cpu_load: Math.round((probe.loadAverage1m() / Math.max(1, probe.cores())) * 100),
    mem_used_gb: gb(mem.totalBytes - mem.freeBytes),
    mem_total_gb: gb(mem.totalBytes),
    storage_free_gb: gb(disk.freeBytes),
    storage_used_gb: gb(disk.usedBytes),
    timestamp: formatIsoWithOffset(probe.now()),
  };
}
