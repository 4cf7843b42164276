// A certificate chain and its private key read from PEM files and checked the way a client will check them.
import { readFile } from 'node:fs/promises';
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { secureContextOptions } from './tls-policy.js';
import { certificateBlocks, issuedBy, parseCertificates } from './pem.js';

/** Where a pair comes from, named in every message (the configuration keys and the paths). */
export interface CertificateFiles {
  certFile: string;
  keyFile: string;
}

export interface CertificatePair {
  certPem: string;
  keyPem: string;
  /** The node's own certificate: the first of the chain. */
  leaf: X509Certificate;
  /** Certificates in the chain file, the node's own included. */
  chainLength: number;
  /** Upper-case hex, as X509Certificate gives it. */
  serial: string;
  notBefore: Date;
  notAfter: Date;
}

/** A pair that cannot be served; the message names the key and file to fix. */
export class CertificateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CertificateError';
  }
}

function parseChain(text: string, file: string): X509Certificate[] {
  if (certificateBlocks(text).length === 0) throw new CertificateError(`tls.cert_file: ${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  let chain: X509Certificate[];
  try {
    chain = parseCertificates(text);
  } catch (err) {
    throw new CertificateError(`tls.cert_file: ${file}: ${(err as Error).message}`);
  }
  chain.forEach((cert, i) => {
    const issuer = chain[i + 1];
    if (issuer !== undefined && !issuedBy(cert, issuer)) {
      throw new CertificateError(`tls.cert_file: ${file}: certificate ${i + 2} did not issue certificate ${i + 1}; the file must hold the node's certificate first, then each issuer in turn`);
    }
  });
  return chain;
}

function parseKey(text: string, file: string): KeyObject {
  if (/ENCRYPTED/.test(text)) throw new CertificateError(`tls.key_file: ${file}: the key is encrypted; the recorder needs it without a passphrase (openssl pkey -in KEY -out PLAIN)`);
  try {
    return createPrivateKey(text);
  } catch (err) {
    throw new CertificateError(`tls.key_file: ${file} holds no usable PEM private key (${(err as Error).message})`);
  }
}

/** Checks a chain and key: parsable, in chain order, the key the first certificate's, and acceptable to OpenSSL. */
export function parseCertificatePair(certPem: string, keyPem: string, files: CertificateFiles): CertificatePair {
  const chain = parseChain(certPem, files.certFile);
  const leaf = chain[0] as X509Certificate;
  const key = parseKey(keyPem, files.keyFile);
  if (!leaf.checkPrivateKey(key)) {
    throw new CertificateError(`tls.key_file: ${files.keyFile} is not the key of the certificate in tls.cert_file ${files.certFile} (serial ${leaf.serialNumber})`);
  }
  try {
    // What OpenSSL will serve: a key below its security level (RSA under 2048 bits, say) is refused here, not per connection.
    createSecureContext(secureContextOptions({ certPem, keyPem }));
  } catch (err) {
    throw new CertificateError(`tls.cert_file ${files.certFile} and tls.key_file ${files.keyFile} cannot be served: ${(err as Error).message}`);
  }
  return { certPem, keyPem, leaf, chainLength: chain.length, serial: leaf.serialNumber, notBefore: new Date(leaf.validFrom), notAfter: new Date(leaf.validTo) };
}

/** Reads and checks both files. */
export async function readCertificatePair(files: CertificateFiles): Promise<CertificatePair> {
  const read = async (key: 'tls.cert_file' | 'tls.key_file', path: string): Promise<string> => {
    try {
      return await readFile(path, 'utf8');
    } catch (err) {
      throw new CertificateError(`${key}: ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  };
  const [certPem, keyPem] = await Promise.all([read('tls.cert_file', files.certFile), read('tls.key_file', files.keyFile)]);
  return parseCertificatePair(certPem, keyPem, files);
}
