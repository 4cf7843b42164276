#!/usr/bin/env node
// vigil-kube-emulator: serves the Kubernetes API emulator on plain HTTP for tests run as separate processes.
import { parseArgs } from 'node:util';
import { startKubeEmulator } from '../dist/src/kube/emulator.js';

const usage = 'usage: vigil-kube-emulator --listen HOST:PORT --kubeconfig FILE [--nodes a,b,c] [--history-limit N] [--heartbeat-seconds S] [--log-requests]';

function fail(message) {
  process.stderr.write(`vigil-kube-emulator: ${message}\n${usage}\n`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      listen: { type: 'string', default: '127.0.0.1:0' },
      kubeconfig: { type: 'string' },
      nodes: { type: 'string' },
      'history-limit': { type: 'string' },
      'heartbeat-seconds': { type: 'string' },
      'log-requests': { type: 'boolean' },
      help: { type: 'boolean' },
    },
    strict: true,
  }));
} catch (err) {
  fail(err.message);
}
if (values.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}
const m = /^(.*):(\d+)$/.exec(values.listen);
if (m === null) fail(`--listen must be HOST:PORT, got "${values.listen}"`);
if (values.kubeconfig === undefined) fail('--kubeconfig FILE is required');
const positive = (name) => {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) fail(`--${name} must be a positive number`);
  return n;
};

const historyLimit = positive('history-limit');
const heartbeatSeconds = positive('heartbeat-seconds');
const emulator = await startKubeEmulator({
  host: m[1].replace(/^\[|\]$/g, ''),
  port: Number(m[2]),
  kubeconfigPath: values.kubeconfig,
  ...(historyLimit !== undefined ? { historyLimit } : {}),
  ...(heartbeatSeconds !== undefined ? { kubelet: { heartbeatSeconds } } : {}),
  ...(values['log-requests'] ? { requestLog: (line) => process.stderr.write(`${line}\n`) } : {}),
});

if (values.nodes) {
  for (const name of values.nodes.split(',').map((n) => n.trim()).filter((n) => n !== '')) {
    const res = await fetch(`${emulator.url}/api/v1/nodes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emulator.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name } } }),
    });
    if (!res.ok) fail(`creating node ${name}: HTTP ${res.status} ${await res.text()}`);
  }
}

process.stdout.write(`listening on ${emulator.url}\n`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  emulator.close().then(() => process.exit(0), (err) => {
    process.stderr.write(`vigil-kube-emulator: ${err.stack ?? err}\n`);
    process.exit(1);
  });
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
