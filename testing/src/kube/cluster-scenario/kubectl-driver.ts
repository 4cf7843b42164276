// A ClusterDriver for a real cluster (kind): kubectl for everything, and port-forwards to the API Service and to the
// node Services that 307s name, so a scenario outside the cluster follows redirects as a client inside it would. With
// the chart's TLS (on by default) the forwards are reached as https://localhost:PORT: the chart's values then put
// `localhost` into every node certificate (tls.extraDnsNames) and the process trusts the release CA
// (NODE_EXTRA_CA_CERTS, from ConfigMap vigil-ca), so the certificate chain and the name are really checked.
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, fetch as undiciFetch } from 'undici';
import { runCommand } from '../../command.js';
import type { ClusterDriver } from './driver.js';

export interface KubectlDriverOptions {
  kubectl: string;
  kubeconfig?: string;
  namespace: string;
  /** The API Service (the chart's `<release>-api`) and its port. */
  apiService: string;
  apiPort: number;
  token: string;
  /** The recorders serve HTTPS (the chart's tls.enabled): forwards are reached as https://localhost. */
  https?: boolean;
  /** The release CA (PEM) the recorders' certificates are checked against; default: the process's (NODE_EXTRA_CA_CERTS). */
  ca?: string;
  /** HOME for kubectl (its discovery cache); default: the process's. */
  home?: string;
}

export interface KubectlDriver extends ClusterDriver {
  /** Opens the port-forward to the API Service (again, after the Pod behind the old one went away). */
  connect(): Promise<void>;
  close(): void;
}

/** `http://vigil-recorder-node.vigil.svc:9997/api/x?y` → the Service, namespace, port and the rest; undefined for other URLs. */
export function parseServiceUrl(url: string): { service: string; namespace: string; port: number; rest: string } | undefined {
  const u = new URL(url);
  const m = /^([a-z0-9-]+)\.([a-z0-9-]+)\.svc(?:\.cluster\.local)?$/.exec(u.hostname);
  if (!m) return undefined;
  return { service: m[1]!, namespace: m[2]!, port: Number(u.port || (u.protocol === 'https:' ? 443 : 80)), rest: `${u.pathname}${u.search}` };
}

/** The local port of kubectl port-forward's "Forwarding from 127.0.0.1:PORT -> …" line. */
export function forwardedPort(line: string): number | undefined {
  const m = /Forwarding from 127\.0\.0\.1:(\d+) ->/.exec(line);
  return m ? Number(m[1]) : undefined;
}

export function kubectlDriver(opts: KubectlDriverOptions): KubectlDriver {
  const env = { ...process.env, ...(opts.kubeconfig !== undefined ? { KUBECONFIG: opts.kubeconfig } : {}), ...(opts.home !== undefined ? { HOME: opts.home } : {}) };
  const agent = opts.ca === undefined ? undefined : new Agent({ connect: { ca: opts.ca } });
  const forwards = new Map<string, { child: ChildProcess; port: Promise<number> }>();
  let api = '';

  const forward = (namespace: string, service: string, port: number): Promise<number> => {
    const key = `${namespace}/${service}:${port}`;
    const existing = forwards.get(key);
    if (existing && existing.child.exitCode === null) return existing.port;
    // localhost: 127.0.0.1 and ::1, whichever `localhost` resolves to first.
    const child = spawn(opts.kubectl, ['-n', namespace, 'port-forward', '--address', opts.https === true ? 'localhost' : '127.0.0.1', `svc/${service}`, `:${port}`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const local = new Promise<number>((resolve, reject) => {
      let seen = '';
      const timer = setTimeout(() => reject(new Error(`kubectl port-forward svc/${service}: no port within 20 s: ${seen}`)), 20_000);
      const onData = (chunk: Buffer) => {
        seen += chunk.toString();
        const p = forwardedPort(seen);
        if (p !== undefined) {
          clearTimeout(timer);
          resolve(p);
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', (c: Buffer) => { seen += c.toString(); });
      child.once('exit', (code) => {
        clearTimeout(timer);
        forwards.delete(key);
        reject(new Error(`kubectl port-forward svc/${service} exited ${code}: ${seen}`));
      });
    });
    local.catch(() => undefined);
    forwards.set(key, { child, port: local });
    return local;
  };

  const local = (port: number) => (opts.https === true ? `https://localhost:${port}` : `http://127.0.0.1:${port}`);

  const closeAll = () => {
    for (const f of forwards.values()) f.child.kill('SIGTERM');
    forwards.clear();
  };
  const withCa = agent === undefined ? undefined : async (url: string, init: RequestInit): Promise<Response> =>
    (await undiciFetch(url, { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher: agent })) as unknown as Response;

  return {
    token: opts.token,
    ...(withCa === undefined ? {} : { fetch: withCa }),
    async kubectl(args, input) {
      const result = await runCommand(opts.kubectl, args, { env, ...(input !== undefined ? { input } : {}), timeoutMs: 60_000 });
      if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${result.code}: ${result.stderr.trim()}`);
      return result.stdout;
    },
    apiBase() {
      if (api === '') throw new Error('kubectlDriver: connect() first');
      return api;
    },
    async connect() {
      closeAll();
      api = local(await forward(opts.namespace, opts.apiService, opts.apiPort));
    },
    async reach(url) {
      const target = parseServiceUrl(url);
      if (!target) return url;
      return `${local(await forward(target.namespace, target.service, target.port))}${target.rest}`;
    },
    close() {
      closeAll();
      void agent?.close();
    },
  };
}
