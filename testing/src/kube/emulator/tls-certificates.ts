// A throw-away CA and server certificate (ECDSA P-256, DER built by hand) so kubeconfigs can use https: client-go sends bearer tokens only over TLS.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';

function len(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), len(body.length), body]);
}

const seq = (...c: Buffer[]): Buffer => tlv(0x30, ...c);
const set = (...c: Buffer[]): Buffer => tlv(0x31, ...c);
const octets = (b: Buffer): Buffer => tlv(0x04, b);
const bits = (b: Buffer): Buffer => tlv(0x03, Buffer.from([0]), b);
const bool = (v: boolean): Buffer => tlv(0x01, Buffer.from([v ? 0xff : 0]));
const utf8 = (s: string): Buffer => tlv(0x0c, Buffer.from(s, 'utf8'));

function integer(b: Buffer): Buffer {
  return tlv(0x02, (b[0] as number) & 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b);
}

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const out = [40 * (parts[0] as number) + (parts[1] as number)];
  for (const p of parts.slice(2)) {
    const chunk: number[] = [p & 0x7f];
    for (let v = p >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

function utcTime(d: Date): Buffer {
  const s = d.toISOString().replace(/[-:T]/g, '').slice(2, 14);
  return tlv(0x17, Buffer.from(`${s}Z`, 'ascii'));
}

const name = (cn: string): Buffer => seq(set(seq(oid('2.5.4.3'), utf8(cn))));
const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'));
const extension = (id: string, critical: boolean, value: Buffer): Buffer => seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  const [head = '', tail = ''] = ip.split('::');
  const h = head === '' ? [] : head.split(':');
  const t = tail === '' ? [] : tail.split(':');
  const groups = [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return Buffer.concat(groups.map((g) => Buffer.from([parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff])));
}

function certificate(opts: { subject: string; issuer: string; publicKey: KeyObject; signer: KeyObject; ca: boolean; hosts: string[] }): Buffer {
  const now = Date.now();
  const serial = randomBytes(16);
  // Positive and minimally encoded (DER forbids a leading zero byte; Go rejects such serials): first byte 0x01–0x7f.
  serial[0] = ((serial[0] as number) & 0x7f) | 0x01;
  const spki = opts.publicKey.export({ type: 'spki', format: 'der' });
  const keyId = createHash('sha1').update(spki).digest();
  const extensions = [
    extension('2.5.29.19', true, opts.ca ? seq(bool(true)) : seq()),
    // keyUsage: digitalSignature, plus keyCertSign and cRLSign for the CA.
    extension('2.5.29.15', true, opts.ca ? tlv(0x03, Buffer.from([1, 0x86])) : tlv(0x03, Buffer.from([7, 0x80]))),
    extension('2.5.29.14', false, octets(keyId)),
  ];
  if (!opts.ca) {
    extensions.push(extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))));
    const names = opts.hosts.map((h) => (isIP(h) ? tlv(0x87, ipBytes(h)) : tlv(0x82, Buffer.from(h, 'ascii'))));
    extensions.push(extension('2.5.29.17', false, seq(...names)));
  }
  const tbs = seq(
    tlv(0xa0, integer(Buffer.from([2]))),
    integer(serial),
    ECDSA_SHA256,
    name(opts.issuer),
    seq(utcTime(new Date(now - 3600_000)), utcTime(new Date(now + 365 * 24 * 3600_000))),
    name(opts.subject),
    spki,
    tlv(0xa3, seq(...extensions)),
  );
  return seq(tbs, ECDSA_SHA256, bits(sign('sha256', tbs, opts.signer)));
}

function pem(label: string, der: Buffer): string {
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

export interface ServingCertificates {
  caPem: string;
  certPem: string;
  keyPem: string;
}

/** A CA and a server certificate for `hosts` (names and IPs), valid for a year. */
export function createServingCertificates(hosts: string[]): ServingCertificates {
  const ca = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const server = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const caDer = certificate({ subject: 'vigil-kube-emulator-ca', issuer: 'vigil-kube-emulator-ca', publicKey: ca.publicKey, signer: ca.privateKey, ca: true, hosts: [] });
  const certDer = certificate({ subject: 'vigil-kube-emulator', issuer: 'vigil-kube-emulator-ca', publicKey: server.publicKey, signer: ca.privateKey, ca: false, hosts });
  return {
    caPem: pem('CERTIFICATE', caDer),
    certPem: pem('CERTIFICATE', certDer),
    keyPem: server.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}
