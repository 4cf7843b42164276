// The HTTP client a node calls other nodes with: TLS 1.2 or newer, their certificates checked against the cluster's CA (cluster.tls.ca_file), re-read when it changes.
import { X509Certificate } from 'node:crypto';
import type { Logger } from 'pino';
import type { Agent } from 'undici';
import type { Clock } from '../util/clock.js';
import { watchedFile } from '../util/watched-file.js';

export interface PeerClientOptions {
  /** PEM bundle of the CA(s) that issue the nodes' certificates; undefined: the system's trusted CAs. */
  caFile: string | undefined;
  log: Logger;
  clock?: Clock;
}

export interface PeerClient {
  /** The connection pool for the next call to a peer (undici is loaded at the first call: most nodes never make one). */
  dispatcher(): Promise<Agent>;
  close(): Promise<void>;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** A CA bundle: at least one certificate, every one parsable. */
function parseCaBundle(text: string): string {
  const blocks = text.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) throw new Error('the file holds no PEM certificate');
  for (const block of blocks) new X509Certificate(block);
  return blocks.join('\n');
}

export function peerClient(opts: PeerClientOptions): PeerClient {
  const ca =
    opts.caFile === undefined
      ? undefined
      : watchedFile({ path: opts.caFile, what: 'cluster.tls.ca_file', log: opts.log, parse: parseCaBundle, forgetWhenMissing: false, ...(opts.clock === undefined ? {} : { clock: opts.clock }) });
  let current: { agent: Agent; ca: string | undefined } | undefined;
  return {
    dispatcher: async () => {
      const { Agent: UndiciAgent } = await import('undici');
      // Nothing awaited from here on: two calls at once share one pool.
      const bundle = ca?.current();
      if (ca !== undefined && bundle === undefined) throw new Error(`cluster.tls.ca_file ${opts.caFile ?? ''} cannot be read, so no peer's certificate can be checked`);
      if (current !== undefined && current.ca === bundle) return current.agent;
      const previous = current;
      current = { agent: new UndiciAgent({ keepAliveTimeout: 4_000, connect: { minVersion: 'TLSv1.2', ...(bundle === undefined ? {} : { ca: bundle }) } }), ca: bundle };
      // A renewed CA: downloads in flight finish on the old pool, new ones check against the new bundle.
      if (previous !== undefined) void previous.agent.close().catch(() => undefined);
      return current.agent;
    },
    close: async () => {
      await current?.agent.close().catch(() => undefined);
      current = undefined;
    },
  };
}
