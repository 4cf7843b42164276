// An emulated Vigil cluster for tests: the Kubernetes API emulator, the generated CRDs applied with real kubectl, a namespace,
// the operator's and the recorders' ServiceAccounts with exactly the chart's RBAC rules, their kubeconfigs and a settings file.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';
import { CoordinationV1Api, CoreV1Api, CustomObjectsApi, KubeConfig, RbacAuthorizationV1Api, type V1PolicyRule } from '@kubernetes/client-node';
import type { Camera, RecorderNode } from '@vigil/crds';
import { parse } from 'yaml';
import { ok } from '../command.js';
import { startEmulatedCluster } from './emulated-cluster.js';
import type { KubeEmulator } from './emulator.js';

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
  emulator: KubeEmulator;
  namespace: string;
  dir: string;
  adminKubeconfig: string;
  operatorKubeconfig: string;
  /** A kubeconfig with the recorders' ServiceAccount token (the chart's recorder rules). */
  recorderKubeconfig: string;
  settingsFile: string;
  kc: KubeConfig;
  core: CoreV1Api;
  coordination: CoordinationV1Api;
  custom: CustomObjectsApi;
  /** The same APIs as the cluster-mode recorder's ServiceAccount, with exactly the chart's recorder rules. */
  recorderApis: { coordination: CoordinationV1Api; custom: CustomObjectsApi };
  kubectl(...args: string[]): Promise<string>;
  /** A kubeconfig with a token of its own for a ServiceAccount (to cut one process off the API). */
  kubeconfigFor(account: 'vigil-operator' | 'vigil-recorder', identity: string): Promise<{ path: string; token: string }>;
  addNode(name: string, labels?: Record<string, string>): Promise<void>;
  camera(name: string): Promise<Camera>;
  cameras(): Promise<Camera[]>;
  recorderNodes(): Promise<RecorderNode[]>;
  /** Events about the release's objects: the Cameras' (release namespace) and the RecorderNodes' (`default`). */
  events(): Promise<Array<{ reason?: string; message?: string; involvedObject: { kind?: string; name?: string }; lastTimestamp?: Date; eventTime?: Date; metadata: { creationTimestamp?: Date } }>>;
}

export const SETTINGS_YAML = `recorder:
  image: vigil/recorder:test
  configMap: vigil-recorder
  serviceAccountName: vigil-recorder
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
}

/** Starts an emulator with the CRDs, a namespace, the recorder ConfigMap and both ServiceAccounts with the chart's RBAC. */
export async function startTestCluster(t: TestContext, opts: TestClusterOptions = {}): Promise<TestCluster> {
  const emulated = await startEmulatedCluster(t);
  const { emulator, dir } = emulated;
  const adminKubeconfig = emulated.kubeconfig;
  const namespace = opts.namespace ?? 'vigil';
  const kc = new KubeConfig();
  kc.loadFromFile(adminKubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const coordination = kc.makeApiClient(CoordinationV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
  // The real kubectl, with a HOME of this test's own (its discovery cache never mixes emulators).
  const kubectl = async (...args: string[]): Promise<string> => ok(await emulated.kubectl(args, { timeoutMs: 60_000 }), `kubectl ${args.join(' ')}`);

  // What a platform engineer types first: the CRDs.
  await kubectl('apply', '-f', CRD_DIR);
  await kubectl('wait', '--for=condition=Established', '--timeout=20s', 'crd/cameras.vigil.io', 'crd/recordernodes.vigil.io');
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'vigil-recorder' }, data: { 'config.yaml': opts.recorderConfigYaml ?? 'cluster:\n  enabled: true\n' } } });

  for (const who of ['operator', 'recorder'] as const) {
    const rules = loadRules(who);
    const sa = `vigil-${who}`;
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: sa } } });
    const roleName = `${sa}-${namespace}`;
    await rbac.createClusterRole({ body: { metadata: { name: roleName }, rules: rules.clusterRules } });
    await rbac.createClusterRoleBinding({ body: { metadata: { name: roleName }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName }, subjects: [{ kind: 'ServiceAccount', name: sa, namespace }] } });
    await rbac.createNamespacedRole({ namespace, body: { metadata: { name: sa }, rules: rules.namespacedRules } });
    await rbac.createNamespacedRoleBinding({ namespace, body: { metadata: { name: sa }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: sa }, subjects: [{ kind: 'ServiceAccount', name: sa, namespace }] } });
    if (rules.defaultNamespaceRules !== undefined) {
      await rbac.createNamespacedRole({ namespace: 'default', body: { metadata: { name: roleName }, rules: rules.defaultNamespaceRules } });
      await rbac.createNamespacedRoleBinding({ namespace: 'default', body: { metadata: { name: roleName }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: roleName }, subjects: [{ kind: 'ServiceAccount', name: sa, namespace }] } });
    }
  }
  const kubeconfigFor = async (account: 'vigil-operator' | 'vigil-recorder', identity: string): Promise<{ path: string; token: string }> => {
    const token = await emulator.issueServiceAccountToken(namespace, account);
    const path = join(dir, `${identity}.kubeconfig`);
    await emulator.writeKubeconfig(path, { token, namespace, user: identity });
    return { path, token };
  };
  const recorderKubeconfig = (await kubeconfigFor('vigil-recorder', 'vigil-recorder')).path;
  const recorderKc = new KubeConfig();
  recorderKc.loadFromFile(recorderKubeconfig);
  const recorderApis = { coordination: recorderKc.makeApiClient(CoordinationV1Api), custom: recorderKc.makeApiClient(CustomObjectsApi) };
  const operatorKubeconfig = (await kubeconfigFor('vigil-operator', 'vigil-operator')).path;
  const settingsFile = join(dir, 'settings.yaml');
  writeFileSync(settingsFile, opts.settingsYaml ?? SETTINGS_YAML);

  return {
    emulator, namespace, dir, adminKubeconfig, operatorKubeconfig, recorderKubeconfig, settingsFile, kc, core, coordination, custom, recorderApis, kubectl, kubeconfigFor,
    async addNode(name, labels = {}) {
      await core.createNode({ body: { metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } } } });
    },
    async camera(name) {
      return (await custom.getNamespacedCustomObject({ group: 'vigil.io', version: 'v1alpha1', namespace, plural: 'cameras', name })) as Camera;
    },
    async cameras() {
      const list = (await custom.listNamespacedCustomObject({ group: 'vigil.io', version: 'v1alpha1', namespace, plural: 'cameras' })) as { items: Camera[] };
      return list.items;
    },
    async recorderNodes() {
      const list = (await custom.listClusterCustomObject({ group: 'vigil.io', version: 'v1alpha1', plural: 'recordernodes' })) as { items: RecorderNode[] };
      return list.items;
    },
    async events() {
      const own = (await core.listNamespacedEvent({ namespace })).items;
      const clusterScoped = namespace === 'default' ? [] : (await core.listNamespacedEvent({ namespace: 'default' })).items;
      return [...own, ...clusterScoped] as never;
    },
  };
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
