// etcd for the tests' control plane: one member on loopback, its data in a temp folder, fsync off (nothing here must
// survive a power cut), and raft timing for one member on loopback (it elects itself at start-up in ~0.1 s, not ~0.5 s).
import { join } from 'node:path';
import { waitForFixture, type FixtureProcess } from '../../fixture-process.js';
import { guardedProcess } from './orphan-guard.js';
import { freePort, startOnFreshPort } from '../../net.js';

export interface EtcdServer {
  /** The client URL kube-apiserver is given (`--etcd-servers`). */
  readonly url: string;
  readonly process: FixtureProcess;
  stop(): Promise<void>;
}

const PORT_ATTEMPTS = 4;

async function healthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000) });
    return res.ok && ((await res.json()) as { health?: string }).health === 'true';
  } catch {
    return false;
  }
}

async function startOn(binary: string, dataDir: string, clientPort: number): Promise<EtcdServer> {
  const peerPort = await freePort();
  const url = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const proc = guardedProcess(binary, [
    '--name=test', `--data-dir=${dataDir}`,
    `--listen-client-urls=${url}`, `--advertise-client-urls=${url}`,
    `--listen-peer-urls=${peer}`, `--initial-advertise-peer-urls=${peer}`, `--initial-cluster=test=${peer}`,
    '--unsafe-no-fsync', '--log-level=warn', '--quota-backend-bytes=2147483648',
    // A lone member has no peer to miss: the election timeout only delays its first election (the defaults, 100 ms
    // and 1 s, are for members across a network), which happens while openssl makes the certificates. Every heartbeat
    // tick costs CPU even with no peer to send it to: at 10 ms ticks an idle etcd used 1.6 CPU-s a minute, at 100 ms 0.4.
    '--heartbeat-interval=100', '--election-timeout=500',
  ]);
  try {
    await waitForFixture(proc, () => healthy(url), 30_000, 'etcd');
  } catch (err) {
    await proc.stop();
    throw err;
  }
  return { url, process: proc, stop: () => proc.stop() };
}

/** Starts etcd on a fresh loopback port (another, when the one picked is taken before etcd binds it). */
export function startEtcd(binary: string, dir: string): Promise<EtcdServer> {
  let attempt = 0;
  return startOnFreshPort((port) => startOn(binary, join(dir, `etcd-data-${++attempt}`), port), (err) => /address already in use/i.test(String(err)), PORT_ATTEMPTS);
}
