// Standalone with PostgreSQL: migrations, the cameras table as a camera source, closed segments through the durable outbox into `recordings`.
import { databaseArchiveSource } from '../archive/database-archive-source.js';
import type { ArchiveSource } from '../archive/segment-listing.js';
import { localCameraLocator } from '../cameras/camera-locator.js';
import { DatabaseCameraSource } from '../cameras/database-source.js';
import type { VigilConfig } from '../config/schema.js';
import { selectCameraRows } from '../db/camera-rows.js';
import { migrate } from '../db/migrations.js';
import { DurableOutbox } from '../db/outbox.js';
import { deliverOutboxBatch } from '../db/outbox-delivery.js';
import { createPool, type Pool } from '../db/pool.js';
import { rowFromSegment } from '../db/recordings-repository.js';
import { staticPeerDirectory } from '../peers/peer-directory.js';
import type { ClosedSegment } from '../recording/closed-segment.js';
import type { ModeContext, RecorderMode } from './recorder-mode.js';

/** The database half of a mode: what cluster mode reuses when a database is configured. */
export interface DatabaseServices {
  pool: Pool;
  outbox: DurableOutbox;
  archive: ArchiveSource;
  /** Durably queues the row of a closed segment (resolves once it is on disk). */
  segmentClosed(segment: ClosedSegment): Promise<void>;
  segmentsRemoved(segments: readonly ClosedSegment[]): Promise<void>;
  close(): Promise<void>;
}

export async function startDatabaseServices(ctx: ModeContext, database: NonNullable<VigilConfig['database']>): Promise<DatabaseServices & { ensureMigrated(): Promise<void> }> {
  const { config, nodeName, log } = ctx;
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
  return {
    pool,
    outbox,
    archive,
    ensureMigrated,
    segmentClosed: (segment) => outbox.append({ op: 'insert', row: rowFromSegment(nodeName, segment) }),
    segmentsRemoved: async (segments) => {
      for (const s of segments) await outbox.append({ op: 'delete', node_name: nodeName, filename: s.filename });
    },
    close: async () => {
      await outbox.drain(2000);
      outbox.close();
      await pool.end().catch(() => undefined);
    },
  };
}

export async function startDatabaseMode(ctx: ModeContext, database: NonNullable<VigilConfig['database']>): Promise<RecorderMode> {
  const db = await startDatabaseServices(ctx, database);
  const cameras = new DatabaseCameraSource({
    registry: ctx.registry,
    config: ctx.config,
    nodeName: ctx.nodeName,
    workDir: ctx.config.work_dir,
    log: ctx.log.child({ component: 'database' }),
    readRows: async () => {
      await db.ensureMigrated();
      return selectCameraRows(db.pool, ctx.nodeName);
    },
    pollMs: database.camera_poll_seconds * 1000,
  });
  return {
    kind: 'database',
    archive: db.archive,
    locator: localCameraLocator(ctx.registry, ctx.nodeName),
    peers: staticPeerDirectory(ctx.config.cluster.peers, ctx.config.tls === undefined ? 'http' : 'https'),
    storagePing: () => db.pool.query('SELECT 1'),
    clusterStore: undefined,
    outbox: db.outbox,
    cluster: undefined,
    segmentClosed: db.segmentClosed,
    segmentsRemoved: db.segmentsRemoved,
    startCameraSources: () => cameras.start(),
    close: async () => {
      cameras.stop();
      await db.close();
    },
  };
}
