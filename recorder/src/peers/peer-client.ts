// The HTTP client a node calls other nodes with: TLS 1.2 or newer, their certificates checked against the cluster's CA (cluster.tls.ca_file), re-read when it changes.
import type { Logger } from 'pino';
import type { Agent } from 'undici';
import type { Clock } from '../util/clock.js';
import { watchedFile } from '../util/watched-file.js';
import { certificateBlocks, parseCertificates } from '../tls/pem.js';

export interface PeerClientOptions {
  /** PEM bundle of the CA(s) that issue the nodes' certificates; undefined: the system's trusted CAs. */
  caFile: string | undefined;
  log: Logger;
  clock?: Clock;
}

export interface PeerClient {
  /**
   * The connection pool for the next call to a peer (undici is loaded at the first call: most nodes never make one);
   * with `tlsName`, the peer's certificate must name that host, whatever address the URL gives.
   */
  dispatcher(tlsName?: string): Promise<Agent>;
  close(): Promise<void>;
}

/** A CA bundle: at least one certificate, every one parsable. */
function parseCaBundle(text: string): string {
  const blocks = certificateBlocks(text);
  if (blocks.length === 0) throw new Error('the file holds no PEM certificate');
  parseCertificates(text);
  return blocks.join('\n');
}

export function peerClient(opts: PeerClientOptions): PeerClient {
  const ca =
    opts.caFile === undefined
      ? undefined
      : watchedFile({ path: opts.caFile, what: 'cluster.tls.ca_file', log: opts.log, parse: parseCaBundle, forgetWhenMissing: false, ...(opts.clock === undefined ? {} : { clock: opts.clock }) });
  /** One pool per name checked ('' = the URL's host), all for the same CA bundle. */
  const pools = new Map<string, { agent: Agent; ca: string | undefined }>();
  return {
    dispatcher: async (tlsName) => {
      const { Agent: UndiciAgent } = await import('undici');
      // Nothing awaited from here on: two calls at once share one pool.
      const bundle = ca?.current();
      if (ca !== undefined && bundle === undefined) throw new Error(`cluster.tls.ca_file ${opts.caFile ?? ''} cannot be read, so no peer's certificate can be checked`);
      const key = tlsName ?? '';
      const current = pools.get(key);
      if (current !== undefined && current.ca === bundle) return current.agent;
      const connect = { minVersion: 'TLSv1.2' as const, ...(bundle === undefined ? {} : { ca: bundle }), ...(tlsName === undefined ? {} : { servername: tlsName }) };
      const next = { agent: new UndiciAgent({ keepAliveTimeout: 4_000, connect }), ca: bundle };
      pools.set(key, next);
      // A renewed CA: downloads in flight finish on the old pool, new ones check against the new bundle.
      if (current !== undefined) void current.agent.close().catch(() => undefined);
      return next.agent;
    },
    close: async () => {
      await Promise.all([...pools.values()].map((p) => p.agent.close().catch(() => undefined)));
      pools.clear();
    },
  };
}
