// Shared steps of the TLS end-to-end tests: trusting a test CA in this test process, a node's certificate files, handshakes.
import { copyFile, mkdir, rename } from 'node:fs/promises';
import { request } from 'node:https';
import { join } from 'node:path';
import { connect, type ConnectionOptions } from 'node:tls';
import type { IssuedCertificate } from '@vigil/testing/test-ca';
import { Agent, setGlobalDispatcher } from 'undici';

/**
 * Makes `fetch` in this test process trust `caPem` (the shared helpers call the global fetch). node --test runs every
 * test file in a process of its own, so no other file is affected.
 */
export function trustInThisProcess(caPem: string): void {
  setGlobalDispatcher(new Agent({ connect: { ca: caPem } }));
}

/** Where a node keeps its certificate and key (as tls.cert_file and tls.key_file name them). */
export interface NodeCertificateFiles {
  certFile: string;
  keyFile: string;
}

/** Installs an issued pair at a node's paths the way certbot or cert-manager do: written beside, renamed over. */
export async function installPair(pair: IssuedCertificate, dir: string): Promise<NodeCertificateFiles> {
  await mkdir(dir, { recursive: true });
  const files = { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') };
  await copyFile(pair.keyFile, `${files.keyFile}.new`);
  await copyFile(pair.certFile, `${files.certFile}.new`);
  await rename(`${files.keyFile}.new`, files.keyFile);
  await rename(`${files.certFile}.new`, files.certFile);
  return files;
}

/** One TLS handshake with a base URL's host and port: the served certificate's serial, or the error that ended it. */
export function servedSerial(baseUrl: string, opts: ConnectionOptions): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), ...opts }, () => {
      const serial = socket.getPeerCertificate().serialNumber;
      socket.end();
      resolve(serial);
    });
    socket.on('error', reject);
  });
}

/** A WebSocket upgrade request over TLS; resolves with the answer's status and Location (101 when it upgraded). */
export function tryUpgrade(url: string, caPem: string, headers: Record<string, string>): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca: caPem, headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', ...headers } });
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, location: res.headers.location });
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, location: undefined });
    });
    req.on('error', reject);
    req.end();
  });
}
