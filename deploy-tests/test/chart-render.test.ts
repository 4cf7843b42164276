// helm template over the values matrix: RBAC from the rule files, the settings and recorder configuration accepted by the
// operator's and the recorder's own parsers, Secrets, Ingress, PostgreSQL, ServiceMonitors — what a user would rely on.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { parseFlags } from '@vigil/operator/dist/src/config/flags.js';
import { parseSettings, type Settings } from '@vigil/operator/dist/src/config/settings.js';
import { MountPaths } from '@vigil/operator/dist/src/desired/pod.js';
import { nodeCertificateNames } from '@vigil/operator/dist/src/desired/node-certificate.js';
import { loadConfig } from '@vigil/recorder/dist/src/config/load.js';
import { parseTokensFile } from '@vigil/recorder/dist/src/config/tokens-file.js';
import { tempDir } from '@vigil/testing/temp-dir';
import { CHART_DIR, configMapText, find, helmTemplate, maybe, parseObjects, renderChart, secretText, VALUES_MATRIX, type KubeObject } from './support/chart.js';

interface Rule { apiGroups: string[]; resources: string[]; verbs: string[] }
const ruleFile = (who: string) => parse(readFileSync(join(CHART_DIR, `rbac/${who}-rules.yaml`), 'utf8')) as { clusterRules: Rule[]; namespacedRules: Rule[]; defaultNamespaceRules?: Rule[] };
const spec = (o: KubeObject) => o.spec as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function settingsOf(objects: KubeObject[]): Settings {
  return parseSettings(parse(configMapText(find(objects, 'ConfigMap', 'vigil-operator-settings'), 'settings.yaml')), 'the chart settings');
}

for (const [variant, values] of Object.entries(VALUES_MATRIX)) {
  test(`${variant}: RBAC is exactly the rule files, without wildcards; the operator's bound to its ServiceAccount, the recorders' left to the operator to bind per node`, async (t) => {
    const objects = await renderChart(t, values);
    for (const who of ['operator', 'recorder']) {
      const rules = ruleFile(who);
      const clusterRole = find(objects, 'ClusterRole', `vigil-vigil-${who}`);
      const role = find(objects, 'Role', `vigil-${who}`);
      // The operator may also read its own ClusterRole (a name only the release knows): the owner of the RecorderNodes.
      const ownRole = { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], resourceNames: ['vigil-vigil-operator'], verbs: ['get'] };
      // ... and update the recorder ClusterRoleBinding alone (its subjects: the nodes' ServiceAccounts).
      const recorderBinding = { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterrolebindings'], resourceNames: ['vigil-vigil-recorder'], verbs: ['update'] };
      assert.deepEqual(clusterRole.rules, who === 'operator' ? [...rules.clusterRules, ownRole, recorderBinding] : rules.clusterRules);
      assert.deepEqual(role.rules, rules.namespacedRules);
      for (const rule of [...(clusterRole.rules as Rule[]), ...(role.rules as Rule[])]) {
        for (const word of [...rule.apiGroups, ...rule.resources, ...rule.verbs]) assert.ok(!word.includes('*'), `${who}: wildcard in ${JSON.stringify(rule)}`);
      }
      if (who === 'recorder') {
        // Each node's recorder runs as a ServiceAccount of its own that the operator makes and binds (least privilege).
        assert.equal(maybe(objects, 'ServiceAccount', 'vigil-recorder'), undefined);
        assert.equal(objects.filter((o) => ['RoleBinding', 'ClusterRoleBinding'].includes(o.kind ?? '') && JSON.stringify(o).includes('"vigil-recorder"')).length, 0);
        // The recorder ClusterRole's one binding, made without subjects: the operator keeps them (one per node).
        const shared = find(objects, 'ClusterRoleBinding', 'vigil-vigil-recorder');
        assert.deepEqual(shared.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'vigil-vigil-recorder' });
        assert.equal(shared.subjects, undefined);
        continue;
      }
      for (const [kind, roleKind] of [['ClusterRoleBinding', 'ClusterRole'], ['RoleBinding', 'Role']] as const) {
        const binding = find(objects, kind, kind === 'RoleBinding' ? `vigil-${who}` : `vigil-vigil-${who}`);
        assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: roleKind === 'Role' ? `vigil-${who}` : `vigil-vigil-${who}` });
        assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: `vigil-${who}`, namespace: 'vigil' }]);
      }
      find(objects, 'ServiceAccount', `vigil-${who}`);
      // Events about cluster-scoped objects live in `default`: a Role there with exactly those rules, or none.
      const inDefault = objects.filter((o) => (o.kind === 'Role' || o.kind === 'RoleBinding') && o.metadata.namespace === 'default' && o.metadata.name === `vigil-vigil-${who}`);
      if (rules.defaultNamespaceRules === undefined) assert.deepEqual(inDefault, []);
      else {
        assert.deepEqual(find(inDefault, 'Role', `vigil-vigil-${who}`).rules, rules.defaultNamespaceRules);
        const binding = find(inDefault, 'RoleBinding', `vigil-vigil-${who}`);
        assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `vigil-vigil-${who}` });
        assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: `vigil-${who}`, namespace: 'vigil' }]);
      }
    }
  });

  test(`${variant}: the settings file passes the operator's schema and names objects the chart makes`, async (t) => {
    const objects = await renderChart(t, values);
    const settings = settingsOf(objects);
    assert.equal(settings.recorder.image, 'vigil:0.1.0');
    find(objects, 'ConfigMap', settings.recorder.configMap);
    // The recorder rules the operator binds to each node's ServiceAccount.
    find(objects, 'ClusterRole', settings.recorder.rbac.clusterRole);
    find(objects, 'Role', settings.recorder.rbac.role);
    const secrets = settings.recorder.secrets;
    for (const name of [secrets.apiTokens, secrets.clusterToken, secrets.license, secrets.database]) if (name) find(objects, 'Secret', name);
    assert.equal(secrets.database !== undefined, variant === 'postgresql enabled' || variant.startsWith('external database'));
    assert.equal(secrets.license !== undefined, variant.includes('license'));
  });

  test(`${variant}: the recorder configuration loads with the recorder's own loader, with the environment the operator gives a Pod`, async (t) => {
    const objects = await renderChart(t, values);
    const settings = settingsOf(objects);
    const dir = await tempDir(t, 'vigil-chart-config-');
    const file = join(dir, 'config.yaml');
    await writeFile(file, configMapText(find(objects, 'ConfigMap', settings.recorder.configMap), settings.recorder.configKey));
    const env = {
      VIGIL_NODE_NAME: 'node-a', VIGIL_CLUSTER_NAMESPACE: 'vigil', VIGIL_CLUSTER_ADVERTISE_URL: `${settings.tls ? 'https' : 'http'}://vigil-recorder-node-a.vigil.svc:9997`,
      ...(settings.tls ? { VIGIL_TLS_DNS_NAMES: nodeCertificateNames('node-a', 'vigil', settings).join(',') } : {}),
      ...(settings.recorder.secrets.database ? { VIGIL_DATABASE_URL: secretText(find(objects, 'Secret', settings.recorder.secrets.database), 'url') } : {}),
    };
    const config = await loadConfig({ file }, env);
    assert.equal(config.cluster.enabled, true);
    // TLS by default: the node's key and CSR, the mounted CA, the names the operator approves.
    assert.equal(config.tls?.kubernetes_csr?.signer_name, settings.tls?.signerName);
    assert.deepEqual(config.tls?.kubernetes_csr?.dns_names, nodeCertificateNames('node-a', 'vigil', settings));
    assert.equal(config.cluster.tls?.ca_file, `${MountPaths.clusterCa}/ca.crt`);
    assert.equal(config.record_path, MountPaths.recordings);
    assert.equal(config.cluster.dataDir, MountPaths.data);
    assert.ok(config.work_dir.startsWith(`${MountPaths.data}/`), `work_dir ${config.work_dir} is on the data hostPath`);
    assert.ok(config.auth.tokens_file?.startsWith(`${MountPaths.apiTokens}/`));
    assert.ok(config.auth.cluster_token_file?.startsWith(`${MountPaths.clusterToken}/`));
    assert.equal(config.listen, `:${settings.recorder.ports.api}`);
    assert.equal(config.metrics.listen, `:${settings.recorder.ports.metrics}`);
    if (settings.recorder.secrets.license) assert.equal(config.license_file, MountPaths.license);
    if (settings.recorder.secrets.database) assert.match(config.database?.url ?? '', /^postgres:\/\//);
    // The files the configuration names exist in the Secrets mounted there.
    const tokens = parseTokensFile(secretText(find(objects, 'Secret', settings.recorder.secrets.apiTokens), 'tokens.yaml'));
    assert.ok(tokens.length > 0, 'at least one API token, or the recorder refuses to start');
    assert.ok(secretText(find(objects, 'Secret', settings.recorder.secrets.clusterToken), 'token').length >= 16);
  });

  test(`${variant}: the operator Deployment has 2 replicas apart, probes, the metrics port and flags the operator accepts`, async (t) => {
    const objects = await renderChart(t, values);
    const deployment = find(objects, 'Deployment', 'vigil-operator');
    const pod = spec(deployment).template.spec;
    assert.equal(spec(deployment).replicas, 2);
    assert.equal(pod.serviceAccountName, 'vigil-operator');
    assert.equal(pod.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey, 'kubernetes.io/hostname');
    assert.equal(pod.securityContext.runAsUser, 10001);
    const container = pod.containers[0];
    assert.equal(container.readinessProbe.httpGet.path, '/readyz');
    assert.equal(container.livenessProbe.httpGet.path, '/healthz');
    assert.deepEqual(container.ports, [{ name: 'metrics', containerPort: 8080, protocol: 'TCP' }]);
    // The heap is sized from the container's memory limit (256Mi by default), not from the machine.
    assert.equal(container.env.find((e: { name: string }) => e.name === 'NODE_OPTIONS')?.value, '--max-old-space-size=128');
    const flags = parseFlags(container.args as string[], { POD_NAMESPACE: 'vigil', POD_NAME: 'vigil-operator-abc' });
    assert.equal(flags.settingsFile, `${container.volumeMounts[0].mountPath}/settings.yaml`);
    assert.equal(flags.listenPort, 8080);
    assert.equal(flags.namespace, 'vigil');
    const pdb = find(objects, 'PodDisruptionBudget', 'vigil-operator');
    assert.deepEqual(spec(pdb).selector.matchLabels, spec(deployment).selector.matchLabels);
    assert.equal(spec(find(objects, 'Service', 'vigil-operator-metrics')).ports[0].targetPort, 'metrics');
  });
}

test('ingress: the API host routes to the API Service and the operator gets the per-node host template, class and TLS', async (t) => {
  const objects = await renderChart(t, VALUES_MATRIX['ingress with TLS']!);
  const ingress = spec(find(objects, 'Ingress', 'vigil-api'));
  assert.equal(ingress.ingressClassName, 'nginx');
  assert.deepEqual(ingress.tls, [{ hosts: ['vigil.example.com'], secretName: 'vigil-tls' }]);
  assert.equal(ingress.rules[0].host, 'vigil.example.com');
  assert.deepEqual(ingress.rules[0].http.paths[0].backend, { service: { name: 'vigil-api', port: { name: 'api' } } });
  // With TLS (the default) every Ingress talks HTTPS to the recorders: ingress-nginx's backend-protocol annotation.
  const https = { 'nginx.ingress.kubernetes.io/backend-protocol': 'HTTPS' };
  assert.deepEqual(settingsOf(objects).ingress, { hostTemplate: '{node}.vigil.example.com', className: 'nginx', tlsSecretName: 'vigil-tls', annotations: https });
  assert.deepEqual(find(objects, 'Ingress', 'vigil-api').metadata.annotations, https);
  const other = await renderChart(t, { ingress: { enabled: true, host: 'cams.example.org', nodeHostTemplate: 'rec-{node}.example.org' } });
  assert.deepEqual(settingsOf(other).ingress, { hostTemplate: 'rec-{node}.example.org', annotations: https });
  assert.equal(maybe(await renderChart(t, {}), 'Ingress', 'vigil-api'), undefined);
  assert.equal(settingsOf(await renderChart(t, {})).ingress, undefined);
});

test('API Service: selects every recorder Pod by the labels the operator sets, on the api and metrics ports', async (t) => {
  const service = spec(find(await renderChart(t, {}), 'Service', 'vigil-api'));
  assert.deepEqual(service.selector, { 'app.kubernetes.io/name': 'vigil', 'app.kubernetes.io/component': 'recorder' });
  assert.deepEqual(service.ports.map((p: { name: string; port: number }) => `${p.name}:${p.port}`), ['api:9997', 'metrics:9998']);
});

test('tokens: plain tokens are stored only as their SHA-256; without any token one admin token is generated', async (t) => {
  const objects = await renderChart(t, VALUES_MATRIX['external database, tokens and a license']!);
  const text = secretText(find(objects, 'Secret', 'vigil-api-tokens'), 'tokens.yaml');
  assert.ok(!text.includes('a-long-enough-admin-token'), 'the plain token is not in the Secret');
  assert.deepEqual(parseTokensFile(text), [
    { name: 'ops', role: 'admin', sha256: createHash('sha256').update('a-long-enough-admin-token').digest('hex') },
    { name: 'wall', role: 'viewer', sha256: 'ab'.repeat(32) },
  ]);
  assert.equal(maybe(objects, 'Secret', 'vigil-admin-token'), undefined);

  const defaults = await renderChart(t, {});
  const admin = secretText(find(defaults, 'Secret', 'vigil-admin-token'), 'token');
  assert.deepEqual(parseTokensFile(secretText(find(defaults, 'Secret', 'vigil-api-tokens'), 'tokens.yaml')), [{ name: 'admin', role: 'admin', sha256: createHash('sha256').update(admin).digest('hex') }]);
});

test('existing Secrets: the chart makes none of its own and the settings name the given ones', async (t) => {
  const objects = await renderChart(t, {
    auth: { existingSecret: 'my-tokens' }, clusterToken: { existingSecret: 'my-cluster-token' },
    license: { existingSecret: 'my-license' }, database: { existingSecret: 'my-database' },
  });
  assert.deepEqual(objects.filter((o) => o.kind === 'Secret').map((o) => o.metadata.name), []);
  assert.deepEqual(settingsOf(objects).recorder.secrets, { apiTokens: 'my-tokens', clusterToken: 'my-cluster-token', license: 'my-license', database: 'my-database' });
});

test('helm template (GitOps): generated tokens change on every render; with the documented values pinned, renders are identical', async (t) => {
  const [first, second] = [await renderChart(t, {}), await renderChart(t, {})];
  assert.notEqual(secretText(find(first, 'Secret', 'vigil-admin-token'), 'token'), secretText(find(second, 'Secret', 'vigil-admin-token'), 'token'), 'no cluster to look the kept value up in');
  assert.notEqual(secretText(find(first, 'Secret', 'vigil-cluster-token'), 'token'), secretText(find(second, 'Secret', 'vigil-cluster-token'), 'token'));
  // docs/kubernetes.md "GitOps": tokens by hash (or auth.existingSecret), the cluster token from a Secret of yours, the
  // trial database's password given.
  const pinned = {
    auth: { tokens: [{ name: 'ops', role: 'admin', sha256: 'ab'.repeat(32) }] },
    clusterToken: { existingSecret: 'vigil-cluster-token-mine' },
    postgresql: { enabled: true, password: 'pinned-db-password-1' },
  };
  const [a, b] = [await helmTemplate(t, pinned), await helmTemplate(t, pinned)];
  assert.equal(a.code, 0, a.stderr);
  assert.equal(a.stdout, b.stdout, 'two renders of pinned values are the same manifests');
  assert.equal(maybe(parseObjects(a.stdout), 'Secret', 'vigil-admin-token'), undefined);
});

test('postgresql enabled: a StatefulSet of the official image, its Service, and a database URL holding the same password', async (t) => {
  const objects = await renderChart(t, VALUES_MATRIX['postgresql enabled']!);
  const sts = spec(find(objects, 'StatefulSet', 'vigil-postgresql'));
  assert.equal(sts.template.spec.containers[0].image, 'postgres:15');
  assert.equal(sts.volumeClaimTemplates[0].spec.resources.requests.storage, '2Gi');
  assert.equal(spec(find(objects, 'Service', 'vigil-postgresql')).ports[0].port, 5432);
  const password = secretText(find(objects, 'Secret', 'vigil-postgresql'), 'password');
  assert.match(password, /^[A-Za-z0-9]{32}$/);
  assert.equal(secretText(find(objects, 'Secret', 'vigil-database'), 'url'), `postgres://vigil:${password}@vigil-postgresql:5432/vigil`);
});

test('ServiceMonitor enabled: one for the operator and one for the recorders, each selecting a Service with a metrics port', async (t) => {
  const objects = await renderChart(t, VALUES_MATRIX['ServiceMonitor enabled']!);
  const monitors = objects.filter((o) => o.kind === 'ServiceMonitor');
  assert.deepEqual(monitors.map((m) => m.metadata.name).sort(), ['vigil-operator', 'vigil-recorder']);
  for (const monitor of monitors) {
    assert.equal(monitor.metadata.labels?.release, 'prometheus');
    const selector = spec(monitor).selector.matchLabels as Record<string, string>;
    const services = objects.filter((o) => o.kind === 'Service' && Object.entries(selector).every(([k, v]) => o.metadata.labels?.[k] === v));
    assert.equal(services.length, 1, `${monitor.metadata.name} selects exactly one Service`);
    assert.ok(spec(services[0]!).ports.some((p: { name: string }) => p.name === spec(monitor).endpoints[0].port));
  }
  assert.equal((await renderChart(t, {})).filter((o) => o.kind === 'ServiceMonitor').length, 0);
});

/** helm template with the cluster serving the Prometheus Operator's PrometheusRule kind (as helm install sees it there). */
async function renderWithPrometheusOperator(t: TestContext, values: Record<string, unknown>): Promise<KubeObject[]> {
  const result = await helmTemplate(t, values, { extraArgs: ['--api-versions', 'monitoring.coreos.com/v1/PrometheusRule'] });
  if (result.code !== 0) throw new Error(`helm template failed:\n${result.stderr}`);
  return parseObjects(result.stdout);
}

test('PrometheusRule: the generated alerts, with the ServiceMonitors, only where the API serves the kind', async (t) => {
  const monitored = { serviceMonitor: { enabled: true }, prometheusRule: { labels: { release: 'prometheus' } } };
  const objects = await renderWithPrometheusOperator(t, monitored);
  const rule = find(objects, 'PrometheusRule', 'vigil-alerts');
  assert.equal(rule.metadata.labels?.release, 'prometheus');
  assert.deepEqual(rule.spec, parse(readFileSync(join(CHART_DIR, 'files/prometheus-rules.yaml'), 'utf8')));
  const alerts = (spec(rule).groups as Array<{ rules: Array<{ alert: string; annotations: Record<string, string> }> }>).flatMap((g) => g.rules);
  assert.ok(alerts.some((a) => a.alert === 'VigilNoQuorum'));
  // The annotations keep Prometheus's own templates: helm does not expand them.
  assert.match(alerts.find((a) => a.alert === 'VigilCameraNotRecording')?.annotations.summary ?? '', /\{\{ \$labels\.camera \}\}/);
  const none = (list: KubeObject[]) => list.filter((o) => o.kind === 'PrometheusRule').length;
  assert.equal(none(await renderChart(t, monitored)), 0, 'no PrometheusRule kind in the cluster: none rendered');
  assert.equal(none(await renderWithPrometheusOperator(t, {})), 0, 'no ServiceMonitors: nothing scrapes what the alerts read');
  assert.equal(none(await renderWithPrometheusOperator(t, { ...monitored, prometheusRule: { enabled: false } })), 0);
});

test('Grafana dashboard: a ConfigMap labelled grafana_dashboard "1" holding the generated dashboard; off with grafanaDashboard.enabled false', async (t) => {
  const objects = await renderChart(t, { grafanaDashboard: { enabled: true, annotations: { grafana_folder: 'Vigil' } } });
  const cm = find(objects, 'ConfigMap', 'vigil-grafana-dashboard');
  assert.equal(cm.metadata.labels?.grafana_dashboard, '1');
  assert.equal(cm.metadata.annotations?.grafana_folder, 'Vigil');
  const dashboard = JSON.parse(configMapText(cm, 'vigil.json')) as { uid: string; title: string };
  assert.deepEqual(dashboard, JSON.parse(readFileSync(join(CHART_DIR, 'files/grafana-dashboard.json'), 'utf8')));
  assert.equal(dashboard.uid, 'vigil-overview');
  assert.equal(maybe(await renderChart(t, { grafanaDashboard: { enabled: false } }), 'ConfigMap', 'vigil-grafana-dashboard'), undefined);
});

test('every namespaced object lands in the release namespace and carries the release labels', async (t) => {
  const objects = await renderChart(t, { postgresql: { enabled: true }, ingress: { enabled: true } }, { namespace: 'cams', release: 'site-a' });
  const clusterScoped = new Set(['ClusterRole', 'ClusterRoleBinding', 'FlowSchema', 'PriorityLevelConfiguration']);
  // The one exception: the operator's Role for Events about cluster-scoped objects, which live in `default`.
  const eventsRole = (o: KubeObject) => (o.kind === 'Role' || o.kind === 'RoleBinding') && o.metadata.name === 'cams-site-a-vigil-operator';
  assert.deepEqual(objects.filter(eventsRole).map((o) => `${o.kind}/${o.metadata.namespace}`), ['Role/default', 'RoleBinding/default']);
  for (const o of objects) {
    if (!clusterScoped.has(o.kind) && !eventsRole(o)) assert.equal(o.metadata.namespace, 'cams', `${o.kind}/${o.metadata.name}`);
    assert.equal(o.metadata.labels?.['app.kubernetes.io/instance'], 'site-a', `${o.kind}/${o.metadata.name}`);
  }
  assert.ok(find(objects, 'ClusterRole', 'cams-site-a-vigil-operator'));
  assert.equal(secretText(find(objects, 'Secret', 'site-a-vigil-database'), 'url').split('@')[1], 'site-a-vigil-postgresql:5432/vigil');
});

test('the operator\'s heap limit follows its memory limit: half of it in Mi or Gi, none without one', async (t) => {
  const nodeOptions = async (resources: unknown) => {
    const objects = await renderChart(t, { operator: { resources } });
    const env = spec(find(objects, 'Deployment', 'vigil-operator')).template.spec.containers[0].env as Array<{ name: string; value?: string }>;
    return env.find((e) => e.name === 'NODE_OPTIONS')?.value;
  };
  assert.equal(await nodeOptions({ limits: { memory: '1Gi' } }), '--max-old-space-size=512');
  assert.equal(await nodeOptions({ requests: { memory: '128Mi' }, limits: { memory: '400Mi' } }), '--max-old-space-size=200');
  assert.equal(await nodeOptions({ limits: null }), undefined, 'no memory limit: Node.js sizes its heap itself');
});
