// Wires PostgreSQL into a recorder: migrations, the camera rows source, the recordings outbox, the listing source.
import type { Logger } from 'pino';
import { databaseArchiveSource } from './archive/database-archive-source.js';
import type { ArchiveSource } from './archive/segment-listing.js';
import { DatabaseCameraSource } from './cameras/database-source.js';
import type { CameraRegistry } from './cameras/registry.js';
import type { VigilConfig } from './config/schema.js';
import { selectCameraRows } from './db/camera-rows.js';
import { migrate } from './db/migrations.js';
import { DurableOutbox } from './db/outbox.js';
import { deliverOutboxBatch } from './db/outbox-delivery.js';
import { createPool, type Pool } from './db/pool.js';
import { rowFromSegment } from './db/recordings-repository.js';
import type { ClosedSegment } from './recording/closed-segment.js';

export interface DatabaseNode {
  pool: Pool;
  outbox: DurableOutbox;
  archive: ArchiveSource;
  /** Durably queues the row of a closed segment (resolves once it is on disk). */
  segmentClosed(segment: ClosedSegment): Promise<void>;
  segmentsRemoved(segments: readonly ClosedSegment[]): Promise<void>;
  /** Publishes the cached, then the current camera rows; call once the fleet listens to the registry. */
  startCameraSource(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseNodeOptions {
  database: NonNullable<VigilConfig['database']>;
  config: VigilConfig;
  nodeName: string;
  registry: CameraRegistry;
  log: Logger;
}

export async function startDatabaseNode(opts: DatabaseNodeOptions): Promise<DatabaseNode> {
  const { database, config, nodeName, log } = opts;
  const dbLog = log.child({ component: 'database' });
  const pool = createPool({ url: database.url, statementTimeoutMs: database.statement_timeout_ms, log: dbLog });

  // Migrations run once; a database that is down at start is retried by whoever needs it next.
  let migrated: Promise<void> | undefined;
  const ensureMigrated = (): Promise<void> => {
    migrated ??= migrate(pool).then(
      (applied) => {
        if (applied.length > 0) dbLog.info({ applied }, 'database migrations applied');
      },
      (err: unknown) => {
        migrated = undefined;
        throw err;
      },
    );
    return migrated;
  };
  await ensureMigrated().catch((err: unknown) => dbLog.warn({ err: (err as Error).message }, 'database unreachable at start; recording goes on and rows wait in the outbox'));

  const archive = databaseArchiveSource(pool);
  const outbox = new DurableOutbox({
    workDir: config.work_dir,
    log: dbLog,
    deliver: async (entries) => {
      await ensureMigrated();
      await deliverOutboxBatch(pool, entries);
      for (const e of entries) archive.invalidate(e.op === 'insert' ? e.row.camera_id : (e.filename.split('/')[0] ?? ''));
    },
  });
  await outbox.open();
  outbox.kick();

  const cameras = new DatabaseCameraSource({
    registry: opts.registry,
    config,
    nodeName,
    workDir: config.work_dir,
    log: dbLog,
    readRows: async () => {
      await ensureMigrated();
      return selectCameraRows(pool, nodeName);
    },
    pollMs: database.camera_poll_seconds * 1000,
  });
  return {
    startCameraSource: () => cameras.start(),
    pool,
    outbox,
    archive,
    segmentClosed: (segment) => outbox.append({ op: 'insert', row: rowFromSegment(nodeName, segment) }),
    segmentsRemoved: async (segments) => {
      for (const s of segments) await outbox.append({ op: 'delete', node_name: nodeName, filename: s.filename });
    },
    close: async () => {
      cameras.stop();
      await outbox.drain(2000);
      outbox.close();
      await pool.end().catch(() => undefined);
    },
  };
}
