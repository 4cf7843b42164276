// Wires one emulator instance: store, resources, controllers, fake kubelet, faults and the HTTP server; nothing is shared between instances.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { builtinResourceTypes } from './builtin-resources.js';
import { BuiltinSchemas } from './builtin-schemas.js';
import { createBootstrapObjects } from './bootstrap-objects.js';
import { CrdController } from './crd-controller.js';
import { FakeKubelet } from './fake-kubelet.js';
import { FaultState } from './faults.js';
import { GarbageCollector } from './garbage-collector.js';
import { KubeHttpServer } from './http-server.js';
import { writeKubeconfigFile } from './kubeconfig.js';
import { NamespaceController } from './namespace-controller.js';
import { ObjectApi } from './object-api.js';
import { ObjectStore } from './object-store.js';
import { OpenApiDocuments } from './openapi.js';
import { PodSecurityAdmission } from './pod-security-admission.js';
import { CertificateSignerAdmission } from './csr-admission.js';
import { RbacAuthorizer } from './rbac-authorizer.js';
import { ResourceRegistry } from './resource-registry.js';
import { tokenRequest } from './review-handlers.js';
import { createServingCertificates } from './tls-certificates.js';
import { TokenAuthority } from './token-authority.js';
import type { ResourceType } from './types.js';
import { WatchRegistry } from './watch-stream.js';
import { WorkloadStatus } from './workload-status.js';

export interface KubeEmulatorOptions {
  host?: string;
  port?: number;
  kubeconfigPath?: string;
  historyLimit?: number;
  kubelet?: { heartbeatSeconds?: number };
  /** Receives one line per request answered (for debugging what a client sends). */
  requestLog?: (line: string) => void;
}

export interface KubeEmulatorFaults {
  cutOff(token: string, mode: 'refuse' | 'hang'): void;
  restore(token: string): void;
  setLatency(ms: number): void;
  failRequests(opts: { status?: number; count?: number; forMs?: number; token?: string }): void;
  clearFailures(): void;
  dropWatches(): void;
  compactHistory(): void;
  reset(): void;
}

export interface KubeEmulatorKubelet {
  setPodReadinessUrl(namespace: string, podName: string, url: string | undefined): void;
  setNodeReady(nodeName: string, ready: boolean): void;
}

export interface KubeEmulator {
  readonly url: string;
  readonly adminToken: string;
  readonly kubeconfigPath: string | undefined;
  writeKubeconfig(path: string, opts?: { token?: string; namespace?: string; user?: string }): Promise<void>;
  issueServiceAccountToken(namespace: string, name: string): Promise<string>;
  readonly faults: KubeEmulatorFaults;
  readonly kubelet: KubeEmulatorKubelet;
  close(): Promise<void>;
}

export async function startKubeEmulator(opts: KubeEmulatorOptions = {}): Promise<KubeEmulator> {
  const host = opts.host ?? '127.0.0.1';
  const store = new ObjectStore(opts.historyLimit ?? 1000);
  const schemas = new BuiltinSchemas();
  const registry = new ResourceRegistry(builtinResourceTypes(schemas));
  const builtin = (group: string, version: string, plural: string): ResourceType => registry.lookup(group, version, plural) as ResourceType;
  let nextIp = 10;
  const rbac = new RbacAuthorizer(store);
  const api = new ObjectApi(store, { allocateClusterIp: () => `10.96.${Math.floor(nextIp / 250)}.${(nextIp++ % 250) + 1}` }, [new PodSecurityAdmission(store), new CertificateSignerAdmission(rbac)]);
  const serviceAccountType = builtin('', 'v1', 'serviceaccounts');
  const findServiceAccount = (namespace: string, name: string) => api.find(serviceAccountType, namespace, name);
  const tokens = new TokenAuthority((namespace, name) => {
    const sa = findServiceAccount(namespace, name);
    return sa === undefined ? undefined : { namespace, name, uid: sa.metadata.uid as string };
  });
  const faults = new FaultState();
  const certificates = createServingCertificates([...new Set(['127.0.0.1', '::1', 'localhost', host])]);
  const watches = new WatchRegistry();

  const controllers = [
    new CrdController(api, registry, schemas, builtin('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')),
    new GarbageCollector(api, registry),
    new NamespaceController(api, registry, builtin('', 'v1', 'namespaces'), serviceAccountType),
    new WorkloadStatus(api, registry),
  ];
  const kubelet = new FakeKubelet(api, registry, opts.kubelet?.heartbeatSeconds ?? 10);
  createBootstrapObjects(api, registry);

  const issueServiceAccountToken = async (namespace: string, name: string): Promise<string> => {
    const answer = tokenRequest({ tokens, rbac, user: { username: 'kubernetes-admin', uid: 'admin', groups: ['system:masters'] }, findServiceAccount, serviceAccountType }, namespace, name, {});
    return (answer.status as { token: string }).token;
  };

  let url = '';
  const faultControls: KubeEmulatorFaults = {
    cutOff: (token, mode) => {
      faults.cutOff(token, mode);
      http.breakConnectionsOf(token, mode === 'refuse' ? 'drop' : 'mute');
    },
    restore: (token) => {
      faults.restore(token);
      // Connections that lived through the cut-off are dead to the client: it reconnects, as after a real partition.
      http.breakConnectionsOf(token, 'drop');
    },
    setLatency: (ms) => { faults.latencyMs = Math.max(0, ms); },
    failRequests: (o) => faults.failRequests(o),
    clearFailures: () => faults.clearFailures(),
    dropWatches: () => watches.endAll('drop'),
    compactHistory: () => store.compact(),
    reset: () => faults.reset(),
  };
  const kubeletControls: KubeEmulatorKubelet = {
    setPodReadinessUrl: (namespace, podName, readinessUrl) => kubelet.setPodReadinessUrl(namespace, podName, readinessUrl),
    setNodeReady: (nodeName, ready) => kubelet.setNodeReady(nodeName, ready),
  };
  const http: KubeHttpServer = new KubeHttpServer({
    registry,
    api,
    watches,
    review: { tokens, rbac, findServiceAccount, serviceAccountType },
    faults,
    tokens,
    rbac,
    openapi: new OpenApiDocuments(registry),
    certificates,
    ...(opts.requestLog !== undefined ? { requestLog: opts.requestLog } : {}),
    serverAddress: () => url.replace(/^http:\/\//, ''),
    admin: {
      ...faultControls,
      ...kubeletControls,
      issueServiceAccountToken,
      stats: () => ({ resourceVersion: store.currentRv, openWatches: watches.size }),
    },
  });

  http.server.listen(opts.port ?? 0, host);
  try {
    await once(http.server, 'listening');
  } catch (err) {
    kubelet.stop();
    for (const c of controllers) c.stop();
    throw err;
  }
  const address = http.server.address() as AddressInfo;
  const hostPort = `${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  url = `http://${hostPort}`;

  // The same port speaks TLS: kubeconfigs use it, since client-go sends no credentials over plain HTTP.
  const writeKubeconfig = (path: string, o: { token?: string; namespace?: string; user?: string } = {}): Promise<void> =>
    writeKubeconfigFile(path, {
      server: `https://${hostPort}`,
      caPem: certificates.caPem,
      token: o.token ?? tokens.adminToken,
      ...(o.user !== undefined ? { user: o.user } : {}),
      ...(o.namespace !== undefined ? { namespace: o.namespace } : {}),
    });
  if (opts.kubeconfigPath !== undefined) await writeKubeconfig(opts.kubeconfigPath);

  let closing: Promise<void> | undefined;
  return {
    url,
    adminToken: tokens.adminToken,
    kubeconfigPath: opts.kubeconfigPath,
    writeKubeconfig,
    issueServiceAccountToken,
    faults: faultControls,
    kubelet: kubeletControls,
    close: () => {
      closing ??= (async () => {
        kubelet.stop();
        for (const c of controllers) c.stop();
        faults.reset();
        await http.close();
      })();
      return closing;
    },
  };
}
