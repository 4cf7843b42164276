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

/**
 * Runs `fn` with a client checked out of the pool. While checked out, a client that loses its
 * server between two queries emits 'error' outside any query; the pool listens only to idle
 * clients, so without this listener that event would crash the process. A client that failed
 * is destroyed instead of going back to the pool.
 */
export async function withClient<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onError = (err: Error): void => {
    lost = err;
  };
  client.on('error', onError);
  try {
    return await fn(client);
  } finally {
    client.off('error', onError);
    client.release(lost);
  }
}
