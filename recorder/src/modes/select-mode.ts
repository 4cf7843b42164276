// Chooses the recorder's mode from the configuration, once, in the composition root.
import type { ModeContext, RecorderMode } from './recorder-mode.js';
import { standaloneMode } from './standalone-mode.js';

export async function startRecorderMode(ctx: ModeContext): Promise<RecorderMode> {
  const { database, cluster } = ctx.config;
  if (cluster.enabled) {
    // Loaded only in cluster mode: the Kubernetes client is most of the recorder's heap (~28 MiB of ~46 MiB) and
    // memory, and every full garbage collection walks it.
    const { startClusterMode } = await import('./cluster-mode.js');
    return startClusterMode(ctx);
  }
  if (database !== undefined) {
    // Loaded only with a database: the PostgreSQL driver stays out of a standalone recorder's memory.
    const { startDatabaseMode } = await import('./database-mode.js');
    return startDatabaseMode(ctx, database);
  }
  return standaloneMode(ctx);
}
