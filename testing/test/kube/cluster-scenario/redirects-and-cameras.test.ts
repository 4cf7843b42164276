// API requests follow 307s through the driver (a port-forward in kind, as they are on loopback) with the caller's token;
// waiting for cameras names what it waited for; the kubectl driver's URL and port-forward parsing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiJson, apiRequest, forwardedPort, parseServiceUrl, waitForRecording, type ClusterDriver } from '../../../src/kube/cluster-scenario.js';

async function serve(t: { after: (fn: () => Promise<void>) => void }, handler: (req: IncomingMessage) => { status: number; headers?: Record<string, string>; body?: string }): Promise<string> {
  const server: Server = createServer((req, res) => {
    const a = handler(req);
    res.writeHead(a.status, a.headers ?? {}).end(a.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('a 307 naming a node Service is followed through reach(), path and query kept, with the same token', async (t) => {
  const seenTokens: string[] = [];
  const node = await serve(t, (req) => {
    seenTokens.push(req.headers.authorization ?? '');
    return { status: 200, body: JSON.stringify({ url: req.url }) };
  });
  const api = await serve(t, (req) => {
    seenTokens.push(req.headers.authorization ?? '');
    return { status: 307, headers: { location: `http://vigil-recorder-node-b.vigil.svc:9997${req.url}` } };
  });
  const reached: string[] = [];
  const driver: ClusterDriver = {
    kubectl: () => Promise.reject(new Error('unused')), apiBase: () => api, token: 'tok',
    reach: async (url) => { reached.push(url); const s = parseServiceUrl(url)!; return `${node}${s.rest}`; },
  };
  const { body, hops } = await apiJson<{ url: string }>(driver, '/api/archive/cam-1/segments?from=1&to=2');
  assert.equal(body.url, '/api/archive/cam-1/segments?from=1&to=2');
  assert.deepEqual(hops, [`${api}/api/archive/cam-1/segments?from=1&to=2`, 'http://vigil-recorder-node-b.vigil.svc:9997/api/archive/cam-1/segments?from=1&to=2']);
  assert.deepEqual(reached, [hops[1]]);
  assert.deepEqual(seenTokens, ['Bearer tok', 'Bearer tok']);
});

test('a redirect loop ends with an error naming the hops; a non-200 answer throws with its status', async (t) => {
  const loop = await serve(t, () => ({ status: 307, headers: { location: '/again' } }));
  const driver: ClusterDriver = { kubectl: () => Promise.reject(new Error('unused')), apiBase: () => loop, token: 'x', reach: (u) => Promise.resolve(u) };
  await assert.rejects(apiRequest(driver, '/start', { maxRedirects: 2 }), /more than 2 redirects .*\/again/);
  const denied = await serve(t, () => ({ status: 401, body: '{"error":{"code":"unauthorized"}}' }));
  await assert.rejects(apiJson({ ...driver, apiBase: () => denied }, '/api/cameras'), /answered 401 .*unauthorized/);
});

test('waitForRecording resolves once every camera records on its node, and times out naming the last state', async () => {
  const states = [
    [{ name: 'cam-1', node: 'a', phase: 'Assigned', recordingNode: '' }],
    [{ name: 'cam-1', node: 'a', phase: 'Recording', recordingNode: 'a' }],
  ];
  let call = 0;
  const driver: ClusterDriver = {
    kubectl: async () => JSON.stringify({ items: (states[Math.min(call++, states.length - 1)] ?? []).map((c) => ({ metadata: { name: c.name }, status: c })) }),
    apiBase: () => '', token: '', reach: (u) => Promise.resolve(u),
  };
  const result = await waitForRecording(driver, 'vigil', ['cam-1'], { timeoutMs: 5000, sleep: () => Promise.resolve() });
  assert.equal(result[0]?.phase, 'Recording');
  await assert.rejects(waitForRecording(driver, 'vigil', ['cam-2'], { timeoutMs: 0, sleep: () => Promise.resolve() }), /waiting for cameras cam-2 to be Recording; last seen: cam-1: Recording on a/);
});

test('the kubectl driver reads node Service URLs and the port kubectl port-forward chose', () => {
  assert.deepEqual(parseServiceUrl('http://vigil-recorder-kind-worker.vigil.svc:9997/api/archive/c/segments?from=1'), { service: 'vigil-recorder-kind-worker', namespace: 'vigil', port: 9997, rest: '/api/archive/c/segments?from=1' });
  assert.equal(parseServiceUrl('https://kind-worker.vigil.example.com/api/x'), undefined);
  assert.equal(forwardedPort('Forwarding from 127.0.0.1:40123 -> 9997\nForwarding from [::1]:40123 -> 9997'), 40123);
  assert.equal(forwardedPort('error: unable to forward'), undefined);
});
