// What `helm install` prints (NOTES): the Pod Security label the namespace needs when it lacks it, the image placeholder
// warning, and a first Camera whose heredoc, pasted into bash as printed, ends and yields a valid Camera.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { parse } from 'yaml';
import { ok, startKubeCluster } from '@vigil/testing/kube/kube-cluster';
import { CHART_DIR } from './support/chart.js';

/** Runs `script` with bash, kubectl being a function that prints what it was given on stdin. */
function pasteIntoBash(script: string): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    const child = execFile('bash', ['-c', `kubectl() { cat; }\n${script}\necho END-OF-PASTE`], { timeout: 10_000 }, (err, stdout) => resolve({ code: err ? 1 : 0, stdout }));
    child.stdin?.end();
  });
}

test('NOTES: the Pod Security label when the namespace lacks it, the image placeholder, and a heredoc that pastes', async (t) => {
  const cluster = await startKubeCluster(t);
  const notesOf = (out: string) => out.slice(out.indexOf('NOTES:'));

  ok(await cluster.kubectl(['create', 'namespace', 'plain']), 'namespace');
  const plain = notesOf(ok(await cluster.helm(['install', 'vigil', CHART_DIR, '-n', 'plain']), 'install into an unlabelled namespace'));
  assert.match(plain, /Pod Security: the recorder Pods need the "privileged" level in namespace plain/);
  assert.match(plain, /^ {5}kubectl label namespace plain pod-security\.kubernetes\.io\/enforce=privileged --overwrite$/m);
  assert.match(plain, /WARNING: image\.repository is "vigil", a placeholder/);

  ok(await cluster.kubectl(['create', 'namespace', 'strict']), 'namespace');
  ok(await cluster.kubectl(['label', 'namespace', 'strict', 'pod-security.kubernetes.io/enforce=baseline']), 'label');
  const strict = notesOf(ok(await cluster.helm(['install', 'vigil', CHART_DIR, '-n', 'strict', '--set', 'image.repository=registry.example.com/vigil']), 'install into a baseline namespace'));
  assert.match(strict, /WARNING: namespace strict enforces Pod Security "baseline", which refuses the recorder Pods/);
  assert.doesNotMatch(strict, /image\.repository is "vigil"/);

  ok(await cluster.kubectl(['create', 'namespace', 'ready']), 'namespace');
  ok(await cluster.kubectl(['label', 'namespace', 'ready', 'pod-security.kubernetes.io/enforce=privileged']), 'label');
  const ready = notesOf(ok(await cluster.helm(['install', 'vigil', CHART_DIR, '-n', 'ready', '--set', 'image.repository=registry.example.com/vigil']), 'install into a privileged namespace'));
  assert.doesNotMatch(ready, /Pod Security:|WARNING/);

  // Step 4 copied from the terminal as printed: bash reaches the end, and the heredoc is a Camera.
  const step = ready.slice(ready.indexOf('4. Add a first camera'), ready.indexOf('5. Read what happens'));
  const paste = step.split('\n').slice(1).join('\n');
  const run = await pasteIntoBash(paste);
  assert.equal(run.code, 0);
  assert.match(run.stdout, /(^|\n)END-OF-PASTE\n$/, 'the heredoc ends');
  const camera = parse(run.stdout.replace(/END-OF-PASTE\n$/, '')) as { kind: string; metadata: { name: string }; spec: { credentialsSecretRef: { name: string } } };
  assert.deepEqual([camera.kind, camera.metadata.name, camera.spec.credentialsSecretRef.name], ['Camera', 'porch', 'porch-camera']);
});
