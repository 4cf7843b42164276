// A container's probe, once: an HTTP GET (2xx–3xx, the serving certificate not checked, as the kubelet does) or a TCP
// connect, to the loopback port its containerPort is mapped to.
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { connect } from 'node:net';
import type { V1Container, V1Probe } from '@kubernetes/client-node';

function portOf(port: number | string, container: V1Container, ports: ReadonlyMap<number, number>): number | undefined {
  const containerPort = typeof port === 'number' ? port : /^\d+$/.test(port) ? Number(port) : container.ports?.find((p) => p.name === port)?.containerPort;
  return containerPort === undefined ? undefined : ports.get(containerPort) ?? containerPort;
}

export function probeOnce(probe: V1Probe, container: V1Container, ports: ReadonlyMap<number, number>): Promise<boolean> {
  const timeoutMs = (probe.timeoutSeconds ?? 1) * 1000;
  if (probe.tcpSocket !== undefined) {
    const port = portOf(probe.tcpSocket.port as number | string, container, ports);
    if (port === undefined) return Promise.resolve(false);
    return new Promise((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, timeout: timeoutMs }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('timeout', () => socket.destroy());
      socket.on('error', () => resolve(false));
      socket.on('close', () => resolve(false));
    });
  }
  const http = probe.httpGet;
  if (http === undefined) return Promise.resolve(true);
  const port = portOf(http.port as number | string, container, ports);
  if (port === undefined) return Promise.resolve(false);
  const https = http.scheme === 'HTTPS';
  const url = `${https ? 'https' : 'http'}://127.0.0.1:${port}${http.path ?? '/'}`;
  const headers = Object.fromEntries((http.httpHeaders ?? []).map((h) => [h.name, h.value]));
  return new Promise((resolve) => {
    const req = (https ? httpsGet : httpGet)(url, { timeout: timeoutMs, headers, ...(https ? { rejectUnauthorized: false } : {}) }, (res) => {
      res.resume();
      resolve((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 400);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}
