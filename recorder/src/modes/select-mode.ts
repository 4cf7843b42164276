// Chooses the recorder's mode from the configuration, once, in the composition root.
import { startDatabaseMode } from './database-mode.js';
import type { ModeContext, RecorderMode } from './recorder-mode.js';
import { standaloneMode } from './standalone-mode.js';

export async function startRecorderMode(ctx: ModeContext): Promise<RecorderMode> {
  const { database } = ctx.config;
  if (database !== undefined) return startDatabaseMode(ctx, database);
  return standaloneMode(ctx);
}
