// The PostgreSQL connection pool: short timeouts so a dead or hung database is an error, never a hang.
import pg from 'pg';
import type { Logger } from 'pino';

export type Pool = pg.Pool;

export interface PoolOptions {
  url: string;
  statementTimeoutMs: number;
  log: Logger;
  max?: number;
}

export function createPool(opts: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.max ?? 8,
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
    statement_timeout: opts.statementTimeoutMs,
    query_timeout: opts.statementTimeoutMs + 1000,
    application_name: 'vigil-recorder',
  });
  // An idle client that loses its server must not crash the process.
  pool.on('error', (err) => opts.log.warn({ err: err.message }, 'database connection lost'));
  return pool;
}
