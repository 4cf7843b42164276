// Chooses the recorder's mode from the configuration, once, in the composition root.
import { startClusterMode } from './cluster-mode.js';
import { startDatabaseMode } from './database-mode.js';
import type { ModeContext, RecorderMode } from './recorder-mode.js';
import { standaloneMode } from './standalone-mode.js';

export async function startRecorderMode(ctx: ModeContext): Promise<RecorderMode> {
  const { database, cluster } = ctx.config;
  if (cluster.enabled) return startClusterMode(ctx);
  if (database !== undefined) return startDatabaseMode(ctx, database);
  return standaloneMode(ctx);
}
