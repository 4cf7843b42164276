// A Vigil cluster for tests: the real Kubernetes control plane (control-plane/), the generated CRDs applied with real kubectl, a namespace,
// the operator's ServiceAccount and the recorders' shared roles with exactly the chart's RBAC rules, kubeconfigs (the
// operator's; each node's, for the ServiceAccount the operator makes per node) and a settings file.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';
import { CoordinationV1Api, CoreV1Api, CustomObjectsApi, KubeConfig, RbacAuthorizationV1Api } from './client-node.js';
import type { V1PolicyRule } from '@kubernetes/client-node';
import type { Camera, RecorderNode } from '@vigil/crds';
import { parse } from 'yaml';
import { ok } from '../command.js';
import { startKubeCluster } from './kube-cluster.js';
import { PooledKubeConfig } from './pooled-kubeconfig.js';
import type { ControlPlane, ControlPlaneOptions } from './control-plane/control-plane.js';
import type { ContainerImages } from './kubelet/container-images.js';
import { waitUntil } from '../processes.js';
import { provisionRecorderIdentity } from './recorder-identity.js';

/** The repository root (this file is compiled to testing/dist/src/kube/). */
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const CRD_DIR = join(REPO_ROOT, 'helm/vigil/crds');

export interface RbacRules {
  clusterRules: V1PolicyRule[];
  namespacedRules: V1PolicyRule[];
  /** Rules for a Role in `default` (Events about cluster-scoped objects live there). */
  defaultNamespaceRules?: V1PolicyRule[];
}

/** The RBAC rules the chart renders (helm/vigil/rbac/<who>-rules.yaml). */
export function loadRules(which: 'operator' | 'recorder'): RbacRules {
  return parse(readFileSync(join(REPO_ROOT, `helm/vigil/rbac/${which}-rules.yaml`), 'utf8')) as RbacRules;
}

export interface TestCluster {
  controlPlane: ControlPlane;
  namespace: string;
  dir: string;
  adminKubeconfig: string;
  operatorKubeconfig: string;
  settingsFile: string;
  kc: KubeConfig;
  core: CoreV1Api;
  coordination: CoordinationV1Api;
  custom: CustomObjectsApi;
  kubectl(...args: string[]): Promise<string>;
  /** A kubeconfig with a token of its own for a ServiceAccount (to cut one process off the API). */
  kubeconfigFor(account: string, identity: string): Promise<{ path: string; token: string }>;
  /**
   * A kubeconfig for the recorder of `node`: a token of the ServiceAccount the operator makes for that node, once the
   * node's recorder Pod exists (waits up to `timeoutMs`), or, with `provision`, made here as the operator would (tests
   * without an operator).
   */
  nodeKubeconfig(node: string, opts?: { provision?: boolean; timeoutMs?: number; identity?: string }): Promise<{ path: string; token: string }>;
  addNode(name: string, labels?: Record<string, string>): Promise<void>;
  camera(name: string): Promise<Camera>;
  cameras(): Promise<Camera[]>;
  recorderNodes(): Promise<RecorderNode[]>;
  /** Events about the release's objects: the Cameras' (release namespace) and the RecorderNodes' (`default`). */
  events(): Promise<Array<{ reason?: string; message?: string; involvedObject: { kind?: string; name?: string }; lastTimestamp?: Date; eventTime?: Date; metadata: { creationTimestamp?: Date } }>>;
}

/** The chart's recorder ClusterRole and Role as startTestCluster names them (namespace `vigil`). */
export const RECORDER_CLUSTER_ROLE = 'vigil-recorder-vigil';
export const RECORDER_ROLE = 'vigil-recorder';

export const SETTINGS_YAML = `recorder:
  image: vigil/recorder:test
  configMap: vigil-recorder
  rbac:
    clusterRole: ${RECORDER_CLUSTER_ROLE}
    role: ${RECORDER_ROLE}
  secrets:
    apiTokens: vigil-api-tokens
    clusterToken: vigil-cluster-token
    database: vigil-database
  resources:
    requests: {cpu: 100m, memory: 128Mi}
ingress:
  hostTemplate: "{node}.vigil.example.com"
  className: nginx
`;

export interface TestClusterOptions {
  namespace?: string;
  settingsYaml?: string;
  /** The recorder ConfigMap's config.yaml (default: cluster mode on). */
  recorderConfigYaml?: string;
  /** What the kubelet runs for each container image (others run as placeholders). */
  images?: ContainerImages;
  /** The control plane's options that a large cluster needs (no fault proxy, a slower kubelet loop). */
  controlPlane?: Pick<ControlPlaneOptions, 'faultProxy' | 'kubeletSyncMs' | 'nodeLeaseSeconds' | 'nodeMonitorGracePeriodSeconds'>;
}

/** Starts a control plane with the CRDs, a namespace, the recorder ConfigMap and both ServiceAccounts with the chart's RBAC. */
export async function startTestCluster(t: TestContext, opts: TestClusterOptions = {}): Promise<TestCluster> {
  const kube = await startKubeCluster(t, { ...opts.controlPlane, ...(opts.images === undefined ? {} : { images: opts.images }) });
  const { controlPlane, dir } = kube;
  const adminKubeconfig = kube.kubeconfig;
  const namespace = opts.namespace ?? 'vigil';
  const kc = PooledKubeConfig.fromFile(adminKubeconfig);
  t.after(() => kc.close());
  const core = kc.makeApiClient(CoreV1Api);
  const coordination = kc.makeApiClient(CoordinationV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
  // The real kubectl, with a HOME of this test's own (its discovery cache never mixes clusters).
  const kubectl = async (...args: string[]): Promise<string> => ok(await kube.kubectl(args, { timeoutMs: 60_000 }), `kubectl ${args.join(' ')}`);

  // What a platform engineer types first: the CRDs.
  await kubectl('apply', '-f', CRD_DIR);
  await kubectl('wait', '--for=condition=Established', '--timeout=20s', 'crd/cameras.vigil.io', 'crd/recordernodes.vigil.io');
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'vigil-recorder' }, data: { 'config.yaml': opts.recorderConfigYaml ?? 'cluster:\n  enabled: true\n' } } });

  // As the chart does: the operator's ServiceAccount bound to its rules; the recorder rules as a ClusterRole and a Role
  // that the operator binds to each node's own ServiceAccount (the ClusterRole through the chart's one binding, made
  // without subjects, which the operator alone may update: templates/rbac.yaml adds that named rule).
  for (const who of ['operator', 'recorder'] as const) {
    const rules = loadRules(who);
    const sa = `vigil-${who}`;
    const roleName = `${sa}-${namespace}`;
    const named = who === 'operator' ? [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterrolebindings'], resourceNames: [`vigil-recorder-${namespace}`], verbs: ['update'] }] : [];
    await rbac.createClusterRole({ body: { metadata: { name: roleName }, rules: [...rules.clusterRules, ...named] } });
    await rbac.createNamespacedRole({ namespace, body: { metadata: { name: sa }, rules: rules.namespacedRules } });
    if (who === 'recorder') {
      await rbac.createClusterRoleBinding({ body: { metadata: { name: roleName, labels: { 'app.kubernetes.io/component': 'recorder' } }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName } } });
      continue;
    }
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: sa } } });
    await rbac.createClusterRoleBinding({ body: { metadata: { name: roleName }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName }, subjects: [{ kind: 'ServiceAccount', name: sa, namespace }] } });
    await rbac.createNamespacedRoleBinding({ namespace, body: { metadata: { name: sa }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: sa }, subjects: [{ kind: 'ServiceAccount', name: sa, namespace }] } });
    if (rules.defaultNamespaceRules !== undefined) {
      await rbac.createNamespacedRole({ namespace: 'default', body: { metadata: { name: roleName }, rules: rules.defaultNamespaceRules } });
      await rbac.createNamespacedRoleBinding({ namespace: 'default', body: { metadata: { name: roleName }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: roleName }, subjects: [{ kind: 'ServiceAccount', name: sa, namespace }] } });
    }
  }
  const kubeconfigFor = async (account: string, identity: string): Promise<{ path: string; token: string }> => {
    const token = await controlPlane.issueServiceAccountToken(namespace, account);
    const path = join(dir, `${identity}.kubeconfig`);
    await controlPlane.writeKubeconfig(path, { token, namespace, user: identity });
    return { path, token };
  };
  const operatorKubeconfig = (await kubeconfigFor('vigil-operator', 'vigil-operator')).path;
  const nodeKubeconfig = async (node: string, o: { provision?: boolean; timeoutMs?: number; identity?: string } = {}) => {
    const account = `vigil-recorder-${node}`;
    if (o.provision === true) await provisionRecorderIdentity({ core, rbac, coordination }, namespace, node, { clusterRole: `vigil-recorder-${namespace}`, role: 'vigil-recorder' });
    // Like the kubelet: the token is mounted once the node's recorder Pod exists, which the operator makes only when
    // the node's identity (ServiceAccount, Role, bindings, Lease) is complete.
    const ready = o.provision === true
      ? () => core.readNamespacedServiceAccount({ name: account, namespace })
      : () => core.readNamespacedPod({ name: account, namespace });
    await waitUntil(async () => ready().then(() => true, () => false), o.timeoutMs ?? 90_000, o.provision === true ? `the ServiceAccount ${account}` : `the recorder Pod ${account}`, 100);
    return kubeconfigFor(account, o.identity ?? `recorder-${node}`);
  };
  const settingsFile = join(dir, 'settings.yaml');
  writeFileSync(settingsFile, opts.settingsYaml ?? SETTINGS_YAML);

  return {
    controlPlane, namespace, dir, adminKubeconfig, operatorKubeconfig, settingsFile, kc, core, coordination, custom, kubectl, kubeconfigFor, nodeKubeconfig,
    async addNode(name, labels = {}) {
      await core.createNode({ body: { metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } } } });
    },
    async camera(name) {
      return (await retryingTooManyRequests(() => custom.getNamespacedCustomObject({ group: 'vigil.io', version: 'v1alpha1', namespace, plural: 'cameras', name }))) as Camera;
    },
    async cameras() {
      const list = (await retryingTooManyRequests(() => custom.listNamespacedCustomObject({ group: 'vigil.io', version: 'v1alpha1', namespace, plural: 'cameras' }))) as { items: Camera[] };
      return list.items;
    },
    async recorderNodes() {
      const list = (await retryingTooManyRequests(() => custom.listClusterCustomObject({ group: 'vigil.io', version: 'v1alpha1', plural: 'recordernodes' }))) as { items: RecorderNode[] };
      return list.items;
    },
    async events() {
      const own = (await core.listNamespacedEvent({ namespace })).items;
      const clusterScoped = namespace === 'default' ? [] : (await core.listNamespacedEvent({ namespace: 'default' })).items;
      return [...own, ...clusterScoped] as never;
    },
  };
}

/**
 * `call`, again after a second while the API server answers 429: a CRD's storage answers "storage is (re)initializing"
 * for a moment after the CRD changes (kubectl retries these by itself; client-node does not).
 */
async function retryingTooManyRequests<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if ((err as { code?: number }).code !== 429 || attempt >= 10) throw err;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

/** cameras.yaml as a user writes it: one Camera per name, with the source `sourceOf(name)`. */
export function camerasYaml(names: string[], extra: (name: string) => string = () => '', sourceOf: (name: string) => string = (n) => `rtsp://10.0.0.10:554/${n}`): string {
  return names
    .map((n) => `apiVersion: vigil.io/v1alpha1
kind: Camera
metadata:
  name: ${n}
spec:
  source: ${sourceOf(n)}
${extra(n)}`)
    .join('---\n');
}
