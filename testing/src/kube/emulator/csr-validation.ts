// CertificateSigningRequest validation as pkg/apis/certificates/validation: the request a signed PEM CSR, usages known
// and not repeated, the signer name's form, expirationSeconds ≥ 600, conditions, the certificate PEM, and on updates
// which path (main, status, approval) may change what.
import { AsnConvert } from '@peculiar/asn1-schema';
import { CertificationRequest } from '@peculiar/asn1-csr';
import { Certificate } from '@peculiar/asn1-x509';
import { createPublicKey, verify } from 'node:crypto';
import { duplicateValue, forbiddenField, invalidValue, notSupported, requiredValue, tooLong } from './field-errors.js';
import type { StatusCause } from './status-errors.js';
import type { KubeObject } from './types.js';
import { arr, rec, str } from './validation-common.js';
import { isDns1123Label, isDns1123Subdomain } from './validation-formats.js';

export const CSR_STORAGE_KEY = 'certificates.k8s.io/certificatesigningrequests';

const VALID_USAGES = [
  'any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment', 'decipher only', 'digital signature',
  'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'key agreement', 'key encipherment', 'microsoft sgc',
  'netscape sgc', 'ocsp signing', 's/mime', 'server auth', 'signing', 'timestamping',
];
const TRUE_ONLY = ['Approved', 'Denied', 'Failed'];
const ECDSA_SHA256 = '1.2.840.10045.4.3.2';
const RSA_SHA256 = '1.2.840.113549.1.1.11';

/** The DER of each PEM block in order, with its type. */
function pemBlocks(text: string): Array<{ type: string; der: Buffer; headers: boolean }> {
  const out: Array<{ type: string; der: Buffer; headers: boolean }> = [];
  for (const m of text.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g)) {
    const body = m[2] ?? '';
    out.push({ type: m[1] ?? '', der: Buffer.from(body.replace(/^[A-Za-z-]+:.*$/gm, '').replace(/\s+/g, ''), 'base64'), headers: /^[A-Za-z-]+:/m.test(body) });
  }
  return out;
}

/** certificates.ParseCSR then CheckSignature: the first PEM block must be a CSR whose signature its own key verifies. */
export function checkSigningRequest(pem: string): string | undefined {
  const block = pemBlocks(pem)[0];
  if (block === undefined || block.type !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  let csr: CertificationRequest;
  try {
    csr = AsnConvert.parse(block.der, CertificationRequest);
  } catch (err) {
    return `x509: malformed certificate request (${(err as Error).message})`;
  }
  const algorithm = csr.signatureAlgorithm.algorithm;
  if (algorithm !== ECDSA_SHA256 && algorithm !== RSA_SHA256) return `x509: cannot verify signature: algorithm ${algorithm} is not supported here`;
  try {
    const key = createPublicKey({ key: Buffer.from(AsnConvert.serialize(csr.certificationRequestInfo.subjectPKInfo)), format: 'der', type: 'spki' });
    const tbs = Buffer.from(csr.certificationRequestInfoRaw ?? AsnConvert.serialize(csr.certificationRequestInfo));
    const ok = verify('sha256', tbs, algorithm === ECDSA_SHA256 ? { key, dsaEncoding: 'der' } : key, Buffer.from(csr.signature));
    return ok ? undefined : (algorithm === ECDSA_SHA256 ? 'x509: ECDSA verification failure' : 'crypto/rsa: verification error');
  } catch (err) {
    return `x509: cannot verify signature: ${(err as Error).message}`;
  }
}

/** validateCertificate: empty, or CERTIFICATE blocks only, without headers, each a parsable certificate. */
function checkCertificate(pem: string): string | undefined {
  if (pem === '') return undefined;
  const blocks = pemBlocks(pem);
  for (const block of blocks) {
    if (block.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found "${block.type}"`;
    if (block.headers) return 'no PEM block headers are permitted';
    try {
      AsnConvert.parse(block.der, Certificate);
    } catch (err) {
      return `x509: malformed certificate (${(err as Error).message})`;
    }
  }
  return blocks.length === 0 ? 'must contain at least one CERTIFICATE PEM block' : undefined;
}

/** apivalidation.ValidateSignerName: "domain/path", the domain of at least two DNS labels, the path DNS subdomains. */
export function validateSignerName(path: string, signerName: string): StatusCause[] {
  if (signerName === '') return [requiredValue(path)];
  const segments = signerName.split('/');
  if (segments.length !== 2) return [invalidValue(path, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const [domain = '', rest = ''] = segments;
  const causes: StatusCause[] = [];
  if (domain.length > 253) causes.push(tooLong(path, 253));
  const labels = domain.split('.');
  for (const label of labels) {
    const errs = isDns1123Label(label);
    if (errs.length > 0) {
      causes.push(...errs.map((e) => invalidValue(path, domain, `validating label "${label}": ${e}`)));
      break;
    }
  }
  if (labels.length < 2) causes.push(invalidValue(path, domain, 'should be a domain with at least two segments separated by dots'));
  for (const label of rest.split('.')) {
    const errs = isDns1123Subdomain(label);
    if (errs.length > 0) {
      causes.push(...errs.map((e) => invalidValue(path, rest, `validating label "${label}": ${e}`)));
      break;
    }
  }
  if (signerName.length > 253 + 253 + 63 + 1 + 1) causes.push(tooLong(path, 571));
  return causes;
}

function decodeBytes(v: unknown): string {
  return typeof v === 'string' ? Buffer.from(v, 'base64').toString('latin1') : '';
}

function conditionsOf(o: KubeObject): Array<Record<string, unknown>> {
  return arr(rec(o.status).conditions).map(rec);
}

function validateConditions(o: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditionsOf(o).forEach((c, i) => {
    const path = `status.conditions[${i}]`;
    const type = str(c.type);
    const status = str(c.status);
    if (type === '') causes.push(requiredValue(`${path}.type`));
    const allowed = TRUE_ONLY.includes(type) ? ['True'] : ['False', 'True', 'Unknown'];
    if (status === '') causes.push(requiredValue(`${path}.status`));
    else if (!allowed.includes(status)) causes.push(notSupported(`${path}.status`, status, allowed));
    if (type === 'Approved') {
      approved = true;
      if (denied) causes.push(invalidValue(`${path}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
    } else if (type === 'Denied') {
      denied = true;
      if (approved) causes.push(invalidValue(`${path}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
    }
    if (seen.has(type)) causes.push(duplicateValue(`${path}.type`, type));
    seen.add(type);
  });
  return causes;
}

/** The whole object's rules (create, and every update path). */
export function validateCsr(o: KubeObject, existing: KubeObject | undefined, subresource: string | undefined): StatusCause[] {
  const spec = rec(o.spec);
  const causes: StatusCause[] = [];
  const problem = checkSigningRequest(decodeBytes(spec.request));
  if (problem !== undefined) causes.push(invalidValue('spec.request', '<request data>', problem));
  const usages = arr(spec.usages).map(str);
  if (usages.length === 0) causes.push(requiredValue('spec.usages'));
  usages.forEach((u, i) => {
    if (!VALID_USAGES.includes(u)) causes.push(notSupported(`spec.usages[${i}]`, u, VALID_USAGES));
    if (usages.indexOf(u) !== i) causes.push(duplicateValue(`spec.usages[${i}]`, u));
  });
  const signerName = str(spec.signerName);
  if (signerName === 'kubernetes.io/legacy-unknown') causes.push(invalidValue('spec.signerName', signerName, 'the legacy signerName is not allowed via this API version'));
  else causes.push(...validateSignerName('spec.signerName', signerName));
  if (typeof spec.expirationSeconds === 'number' && spec.expirationSeconds < 600) {
    causes.push(invalidValue('spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  causes.push(...validateConditions(o));
  const certificate = decodeBytes(rec(o.status).certificate);
  const oldCertificate = existing === undefined ? '' : decodeBytes(rec(existing.status).certificate);
  if (existing === undefined || certificate !== oldCertificate) {
    const bad = checkCertificate(certificate);
    if (bad !== undefined) causes.push(invalidValue('status.certificate', '<certificate data>', bad));
  }
  if (existing !== undefined) causes.push(...validateCsrUpdate(o, existing, subresource, certificate, oldCertificate));
  return causes;
}

function validateCsrUpdate(o: KubeObject, existing: KubeObject, subresource: string | undefined, certificate: string, oldCertificate: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const of = (obj: KubeObject, type: string) => conditionsOf(obj).filter((c) => c.type === type);
  for (const type of ['Approved', 'Denied', 'Failed']) {
    if (of(o, type).length < of(existing, type).length) causes.push(forbiddenField('status.conditions', `updates may not remove a condition of type "${type}"`));
  }
  if (subresource !== 'approval') {
    for (const type of ['Approved', 'Denied']) {
      const now = of(o, type);
      const before = of(existing, type);
      if (now.length > before.length) causes.push(forbiddenField('status.conditions', `updates may not add a condition of type "${type}"`));
      else if (now.length === before.length && JSON.stringify(now) !== JSON.stringify(before)) causes.push(forbiddenField('status.conditions', `updates may not modify a condition of type "${type}"`));
    }
  }
  if (certificate !== oldCertificate) {
    if (subresource !== 'status') causes.push(forbiddenField('status.certificate', 'updates may not set certificate content'));
    else if (oldCertificate !== '') causes.push(forbiddenField('status.certificate', 'updates may not modify existing certificate content'));
  }
  return causes;
}
