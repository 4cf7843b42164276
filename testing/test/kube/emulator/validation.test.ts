// Built-in objects validated with the API's formats, so that what kube-apiserver refuses is refused here too, with its answers as kubectl and helm print them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FIXTURES, ok, startEmulatorFixture, type EmulatorFixture } from './emulator-fixture.js';

const QUANTITY_GRAMMAR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

type Status = { code: number; reason: string; message: string; details?: { name?: string; kind?: string; causes?: Array<{ reason: string; message: string; field?: string }> } };

const pod = (name: string, container: Record<string, unknown>, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox:1', ...container }], ...spec },
});

async function post(f: EmulatorFixture, path: string, body: unknown): Promise<Status & { status: number }> {
  const res = await f.request('POST', path, body);
  return { ...(res.body as Status), status: res.status };
}

/** The "field: message" lines of a 422, as kubectl lists them. */
function causes(s: Status): string[] {
  return (s.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
}

test('quantities follow the API\'s grammar: 1Gb and 192i refused at decoding (400, as kubectl and helm print it), 1Gi, 500m, 1e3 and 0.5 accepted', async (t) => {
  const f = await startEmulatorFixture(t);
  const refused = await f.kubectl(['apply', '-f', '-'], { input: JSON.stringify(pod('big', { resources: { limits: { memory: '1Gb' } } })) });
  assert.equal(refused.code, 1);
  assert.equal(refused.stderr.trim(), `Error from server (BadRequest): error when creating "STDIN": Pod in version "v1" cannot be handled as a Pod: ${QUANTITY_GRAMMAR}`);
  const suffix = await post(f, '/api/v1/namespaces/default/pods', pod('odd', { resources: { requests: { memory: '192i' } } }));
  assert.deepEqual([suffix.status, suffix.reason, suffix.message], [400, 'BadRequest', 'Pod in version "v1" cannot be handled as a Pod: unable to parse quantity\'s suffix']);
  const fine = await post(f, '/api/v1/namespaces/default/pods', pod('fine', { resources: { limits: { memory: '1Gi', cpu: '1e3', 'ephemeral-storage': '0.5' }, requests: { cpu: '500m', memory: 134217728 } } }));
  assert.equal(fine.status, 201, fine.message);

  // Decoding also refuses JSON of the wrong type, naming the Go field as encoding/json does.
  const typed = await post(f, '/apis/apps/v1/namespaces/default/deployments', {
    metadata: { name: 'web' },
    spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1', env: [{ name: 'PORT', value: 8080 }] }] } } },
  });
  assert.equal(typed.message, 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number into Go struct field EnvVar.spec.template.spec.containers.env.value of type string');

  // helm install of a chart that renders `memory: 1Gb` fails with the API's message and stores nothing of it.
  const installed = await f.helm(['install', 'demo', join(FIXTURES, 'chart'), '--set', 'resources.limits.memory=1Gb', '--timeout', '60s']);
  assert.notEqual(installed.code, 0);
  assert.match(installed.stderr, new RegExp(`Error: INSTALLATION FAILED: .*Deployment in version "v1" cannot be handled as a Deployment: ${QUANTITY_GRAMMAR.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  assert.equal((await f.kubectl(['get', 'deployment', 'demo-operator'])).code, 1);
  ok(await f.helm(['uninstall', 'demo']), 'uninstall the failed release');
  const good = await f.helm(['install', 'demo', join(FIXTURES, 'chart'), '--set', 'resources.limits.memory=1Gi', '--set', 'resources.requests.cpu=250m', '--wait', '--timeout', '60s']);
  assert.equal(good.code, 0, good.stderr);
  assert.equal(ok(await f.kubectl(['get', 'deploy', 'demo-operator', '-o', 'jsonpath={.spec.template.spec.containers[0].resources.limits.memory}']), 'limits'), '1Gi');
});

test('names, labels, annotations, ports, env names, container names, required fields and enums are refused with kube-apiserver\'s 422 causes', async (t) => {
  const f = await startEmulatorFixture(t);
  const badName = await f.kubectl(['create', 'configmap', 'Bad_Name']);
  assert.match(badName.stderr, /error: failed to create configmap: ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character \(e.g. 'example.com', regex used for validation is '\[a-z0-9\]\(\[-a-z0-9\]\*\[a-z0-9\]\)\?\(\\.\[a-z0-9\]\(\[-a-z0-9\]\*\[a-z0-9\]\)\?\)\*'\)/);
  // Services are DNS-1035 labels: no leading digit.
  const svc = await post(f, '/api/v1/namespaces/default/services', { metadata: { name: '1api' }, spec: { ports: [{ port: 80 }] } });
  assert.deepEqual(causes(svc), ['metadata.name: Invalid value: "1api": a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')']);

  const bad = await post(f, '/api/v1/namespaces/default/pods', {
    metadata: { name: 'bad', labels: { 'bad key': 'x', app: 'y'.repeat(64) }, annotations: { big: 'z'.repeat(256 * 1024) }, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'cm' }] },
    spec: {
      restartPolicy: 'Sometimes',
      containers: [
        { name: 'web', image: 'nginx:1', imagePullPolicy: 'Sometimes', ports: [{ containerPort: 70000, name: 'HTTP_Port' }], env: [{ name: 'A=B', value: 'x' }] },
        { name: 'web' },
      ],
    },
  });
  assert.equal(bad.status, 422);
  assert.equal(bad.reason, 'Invalid');
  assert.deepEqual(causes(bad), [
    'metadata.labels: Invalid value: "bad key": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
    `metadata.labels: Invalid value: "${'y'.repeat(64)}": must be no more than 63 bytes`,
    'metadata.annotations: Too long: may not be more than 262144 bytes',
    'metadata.ownerReferences[0].uid: Required value: must not be empty',
    'spec.containers[0].ports[0].name: Invalid value: "HTTP_Port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    'spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
    'spec.containers[0].env[0].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than \'=\'',
    'spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
    'spec.containers[1].name: Duplicate value: "web"',
    'spec.containers[1].image: Required value',
    'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
  ]);
  assert.deepEqual(bad.details?.causes?.map((c) => c.reason), ['FieldValueInvalid', 'FieldValueInvalid', 'FieldValueTooLong', 'FieldValueRequired', 'FieldValueInvalid', 'FieldValueInvalid', 'FieldValueInvalid', 'FieldValueNotSupported', 'FieldValueDuplicate', 'FieldValueRequired', 'FieldValueNotSupported']);
  assert.match(bad.message, /^Pod "bad" is invalid: \[metadata.labels: Invalid value: "bad key": .*, spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"\]$/);

  // A volume mount naming no volume, a request above its limit.
  const mounts = await post(f, '/api/v1/namespaces/default/pods', pod('mounts', { volumeMounts: [{ name: 'data', mountPath: '/data' }], resources: { limits: { cpu: '1' }, requests: { cpu: '2' } } }));
  assert.deepEqual(causes(mounts), ['spec.containers[0].volumeMounts[0].name: Not found: "data"', 'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1']);

  const service = await post(f, '/api/v1/namespaces/default/services', { metadata: { name: 'api' }, spec: { type: 'Public', ports: [{ port: 80, name: 'http' }, { port: 0, name: 'http', targetPort: 'Web_UI' }] } });
  assert.deepEqual(causes(service), [
    'spec.type: Unsupported value: "Public": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
    'spec.ports[1].name: Duplicate value: "http"',
    'spec.ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive',
    'spec.ports[1].targetPort: Invalid value: "Web_UI": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
  ]);
  const secret = await f.kubectl(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'tls' }, type: 'kubernetes.io/tls', stringData: { 'tls crt': 'x' } }) });
  assert.match(secret.stderr, /The Secret "tls" is invalid: \n\* data\[tls crt\]: Invalid value: "tls crt": a valid config key must consist of alphanumeric characters, '-', '_' or '.' .*\n\* data\[tls.crt\]: Required value\n\* data\[tls.key\]: Required value/);
});

test('workloads, disruption budgets, Ingresses, Leases and RBAC objects meet their kinds\' rules', async (t) => {
  const f = await startEmulatorFixture(t);
  const template = (labels: Record<string, string>) => ({ metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1' }] } });
  const deployment = await post(f, '/apis/apps/v1/namespaces/default/deployments', {
    metadata: { name: 'web' },
    spec: { replicas: -1, selector: { matchLabels: { app: 'web' } }, template: template({ app: 'other' }), strategy: { rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } } },
  });
  assert.deepEqual(causes(deployment), [
    'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    'spec.template.metadata.labels: Invalid value: {"app":"other"}: `selector` does not match template `labels`',
    'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0',
  ]);
  assert.match(deployment.message, /^Deployment.apps "web" is invalid: \[/);
  const pdb = await post(f, '/apis/policy/v1/namespaces/default/poddisruptionbudgets', { metadata: { name: 'web' }, spec: { minAvailable: 1, maxUnavailable: '150%', selector: { matchLabels: { app: 'web' } } } });
  assert.deepEqual(causes(pdb).map((c) => c.replace(/Invalid value: \{.*\}: /, 'Invalid value: {...}: ')), [
    'spec: Invalid value: {...}: minAvailable and maxUnavailable cannot be both set',
    'spec.maxUnavailable: Invalid value: "150%": must not be greater than 100%',
  ]);
  const ingress = await f.kubectl(['apply', '-f', '-'], { input: JSON.stringify({
    apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'api' },
    spec: { rules: [{ host: '10.0.0.1', http: { paths: [{ path: 'api', backend: { service: { name: 'api', port: { name: 'http', number: 80 } } } }] } }] },
  }) });
  assert.match(ingress.stderr, /The Ingress "api" is invalid: \n\* spec.rules\[0\].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address\n\* spec.rules\[0\].http.paths\[0\].pathType: Required value: pathType must be specified\n\* spec.rules\[0\].http.paths\[0\].backend.service.port: Invalid value: "": cannot set both port name & port number/);
  const lease = await post(f, '/apis/coordination.k8s.io/v1/namespaces/default/leases', { metadata: { name: 'vigil-node-a' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 0 } });
  assert.deepEqual(causes(lease), ['spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0']);

  const role = await f.kubectl(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['pods'] }, { verbs: ['get'], nonResourceURLs: ['/metrics'] }] }) });
  assert.match(role.stderr, /The Role "reader" is invalid: \n\* rules\[0\].verbs: Required value: verbs must contain at least one value\n\* rules\[1\].nonResourceURLs: Invalid value: \["\/metrics"\]: namespaced rules cannot apply to non-resource URLs/);
  const binding = await post(f, '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', { metadata: { name: 'b' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Secret', name: 'reader' }, subjects: [{ kind: 'Robot', name: 'r2' }] });
  assert.deepEqual(causes(binding), ['roleRef.kind: Unsupported value: "Secret": supported values: "Role", "ClusterRole"', 'subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"']);
  const account = await f.kubectl(['create', 'serviceaccount', 'Recorder']);
  assert.match(account.stderr, /failed to create serviceaccount: ServiceAccount "Recorder" is invalid: metadata.name: Invalid value: "Recorder": a lowercase RFC 1123 subdomain/);
  // Custom resources get the metadata rules too.
  ok(await f.kubectl(['apply', '-f', join(FIXTURES, 'camera-crd.yaml')]), 'crd');
  ok(await f.kubectl(['wait', '--for=condition=Established', 'crd/cameras.vigil.io', '--timeout=30s']), 'established');
  const camera = await post(f, '/apis/vigil.io/v1alpha1/namespaces/default/cameras', { metadata: { name: 'porch', labels: { 'vigil.io/': 'x' } }, spec: { source: 'rtsp://192.0.2.1/s' } });
  assert.deepEqual(causes(camera), ['metadata.labels: Invalid value: "vigil.io/": name part must be non-empty', 'metadata.labels: Invalid value: "vigil.io/": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')']);

  // An update may not change what the API keeps immutable.
  ok(await f.kubectl(['create', 'rolebinding', 'rb', '--role=reader-x', '--serviceaccount=default:default']), 'rolebinding');
  const changed = await f.kubectl(['patch', 'rolebinding', 'rb', '--type=merge', '-p', '{"roleRef":{"name":"other"}}']);
  assert.match(changed.stderr, /The RoleBinding "rb" is invalid: roleRef: Invalid value: .*: cannot change roleRef/);
  await post(f, '/api/v1/namespaces/default/pods', pod('p', {}));
  const moved = await f.kubectl(['patch', 'pod', 'p', '--type=merge', '-p', '{"spec":{"restartPolicy":"Never"}}']);
  assert.match(moved.stderr, /The Pod "p" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`/);
  ok(await f.kubectl(['set', 'image', 'pod/p', 'c=busybox:2']), 'an image change is allowed');
});
