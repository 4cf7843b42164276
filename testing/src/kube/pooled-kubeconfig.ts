// A KubeConfig whose API clients reuse their connections. client-node 1.x gives every request a new https.Agent, so each
// call opened a TCP connection and made a TLS handshake (and a new secure context) on both sides: the process kubelet's
// twice-a-second polling and the tests' waitUntil loops spent a good share of their process's and kube-apiserver's CPU
// on handshakes. Here every request with the same TLS settings goes through one keep-alive agent.
import { Agent } from 'node:https';
import { KubeConfig } from './client-node.js';

type RequestContext = Parameters<KubeConfig['applySecurityAuthentication']>[0];

/**
 * Idle connections are closed after this long: well before kube-apiserver's own idle timeout (90 s), so a request
 * never goes out on a connection the server is closing.
 */
const IDLE_CLOSE_MS = 30_000;

const part = (v: unknown): string => (v === undefined ? '' : Buffer.isBuffer(v) ? v.toString('base64') : String(v));

export class PooledKubeConfig extends KubeConfig {
  private pool: { key: string; agent: Agent } | undefined;

  /** A KubeConfig read from `file`, as `new KubeConfig().loadFromFile(file)`. */
  static fromFile(file: string): PooledKubeConfig {
    const kc = new PooledKubeConfig();
    kc.loadFromFile(file);
    return kc;
  }

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    const fresh = context.getAgent();
    if (!(fresh instanceof Agent)) return;
    const o = fresh.options;
    // The TLS settings the kubeconfig gave this request (read again each time: a changed kubeconfig gets a new pool).
    const key = [o.ca, o.cert, o.key, o.pfx, o.passphrase, o.rejectUnauthorized, o.servername].map(part).join('|');
    if (this.pool?.key !== key) {
      this.pool?.agent.destroy();
      this.pool = { key, agent: new Agent({ ...o, keepAlive: true, timeout: IDLE_CLOSE_MS }) };
    }
    context.setAgent(this.pool.agent);
  }

  /** Closes the pooled connections (idle ones do not keep the process alive either way). */
  close(): void {
    this.pool?.agent.destroy();
    this.pool = undefined;
  }
}
