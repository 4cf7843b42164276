// A node's certificate through the Kubernetes CSR API (kubernetes.md "Node certificates"): asks when it has none, when
// two thirds of its lifetime have passed, when the names it needs or the cluster's CA changed; writes what is issued
// beside its key and has it served without a restart. Never stops anything else: recording goes on whatever happens here.
import type { KeyObject, X509Certificate } from 'node:crypto';
import { rename, writeFile } from 'node:fs/promises';
import { NODE_CERTIFICATE_USAGES, RENEW_AT_FRACTION } from '@vigil/crds';
import { createSigningRequest, Resources, type CertificateSigningRequest, type KubeClient } from '@vigil/kube';
import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../util/clock.js';
import { parseCertificates } from '../tls/pem.js';
import { assessNodeCertificate, readOptional, type CertificateAssessment, type NodeCertificateFiles } from './node-certificate-files.js';

/** What the served certificate offers: a reload of its files, and the reason it still waits (readiness, 503s). */
export interface ServedNodeCertificate {
  reload(): Promise<boolean>;
  setWaiting(reason: string): void;
}

/** The part of the Kubernetes CSR API the requester uses: create a request, read it back (undefined once deleted). */
export interface SigningRequestApi {
  create(body: CertificateSigningRequest): Promise<CertificateSigningRequest>;
  get(name: string): Promise<CertificateSigningRequest | undefined>;
}

export function kubeSigningRequestApi(client: KubeClient): SigningRequestApi {
  return {
    create: (body) => client.create(Resources.certificateSigningRequests, body),
    get: (name) => client.get<CertificateSigningRequest>(Resources.certificateSigningRequests, undefined, name),
  };
}

export interface NodeCertificateOptions {
  api: SigningRequestApi;
  nodeName: string;
  files: NodeCertificateFiles;
  key: KeyObject;
  dnsNames: readonly string[];
  signerName: string;
  /** cluster.tls.ca_file: the certificate must chain to it (a changed CA makes the node ask again). */
  caFile: string | undefined;
  served: ServedNodeCertificate;
  clock: Clock;
  log: Logger;
}

/** While a node holds a good certificate it looks again this often (a changed CA bundle is noticed within it). */
const RECHECK_MS = 60_000;
const POLL_MS = 1000;
const MAX_POLL_MS = 5000;
/** After a failed request (or an issued certificate the node does not keep): 5 s, doubled each time up to 5 min. */
const RETRY_MS = 5000;
const MAX_RETRY_MS = 300_000;

class Stopped extends Error {}

export class NodeCertificateRequester {
  readonly #o: NodeCertificateOptions;
  readonly #log: Logger;
  #stopped = false;
  #timer: TimerHandle | undefined;
  #wake: (() => void) | undefined;
  #reported: string | undefined;

  constructor(opts: NodeCertificateOptions) {
    this.#o = opts;
    this.#log = opts.log.child({ component: 'node-certificate' });
  }

  start(): void {
    void this.#run();
  }

  stop(): void {
    this.#stopped = true;
    this.#o.clock.clearTimeout(this.#timer);
    this.#wake?.();
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.#stopped) return reject(new Stopped());
      this.#wake = () => reject(new Stopped());
      this.#timer = this.#o.clock.setTimeout(() => resolve(), ms);
      this.#timer.unref?.();
    });
  }

  async #trusted(): Promise<X509Certificate[] | undefined> {
    if (this.#o.caFile === undefined) return undefined;
    try {
      const text = await readOptional(this.#o.caFile);
      const certs = text === undefined ? [] : parseCertificates(text);
      return certs.length > 0 ? certs : undefined;
    } catch {
      return undefined;
    }
  }

  async #assess(certPem: string | undefined): Promise<CertificateAssessment> {
    return assessNodeCertificate({
      certPem, key: this.#o.key, dnsNames: this.#o.dnsNames, trusted: await this.#trusted(), now: this.#o.clock.now(), renewAtFraction: RENEW_AT_FRACTION,
    });
  }

  async #run(): Promise<void> {
    let retryMs = RETRY_MS;
    try {
      for (;;) {
        const held = await this.#assess(await readOptional(this.#o.files.certFile).catch(() => undefined));
        if (held.keep) {
          retryMs = RETRY_MS;
          await this.#sleep(Math.max(1000, Math.min(RECHECK_MS, held.renewAt - this.#o.clock.now())));
          continue;
        }
        this.#log.info({ why: held.why, signer: this.#o.signerName, names: this.#o.dnsNames }, `asking for a certificate through the Kubernetes CSR API: ${held.why}`);
        try {
          await this.#obtain(held);
          this.#reported = undefined;
          retryMs = RETRY_MS;
        } catch (err) {
          if (err instanceof Stopped) throw err;
          const message = err instanceof Error ? err.message : String(err);
          this.#o.served.setWaiting(message);
          if (this.#reported !== message) this.#log.error({ err: message, retry_s: Math.round(retryMs / 1000) }, `no certificate for this node: ${message}; asking again in ${Math.round(retryMs / 1000)} s (recording goes on)`);
          this.#reported = message;
          await this.#sleep(retryMs);
          retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
        }
      }
    } catch (err) {
      if (!(err instanceof Stopped)) this.#log.error({ err: String(err) }, 'the node certificate loop ended unexpectedly');
    }
  }

  /** One request, from creation to the certificate written and served. */
  async #obtain(held: CertificateAssessment): Promise<void> {
    const { api, signerName } = this.#o;
    const request = createSigningRequest(this.#o.key, this.#o.dnsNames);
    const body: CertificateSigningRequest = {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { generateName: `${this.#o.dnsNames[0] ?? 'vigil-recorder'}-`, annotations: { 'vigil.io/node': this.#o.nodeName } },
      spec: { request: Buffer.from(request).toString('base64'), signerName, usages: [...NODE_CERTIFICATE_USAGES] },
    };
    const created = await api.create(body).catch((err: unknown) => {
      throw new Error(`cannot create a CertificateSigningRequest (signer ${signerName}): ${err instanceof Error ? err.message : String(err)}`);
    });
    const name = created.metadata.name ?? '';
    const waitingFor = (what: string): string => `CertificateSigningRequest ${name} (signer ${signerName}) ${what}`;
    this.#o.served.setWaiting(waitingFor('waits for approval'));
    this.#log.info({ csr: name }, `this node waits for its certificate: ${waitingFor('waits for approval')}; its API is not served until it has one (recording goes on)`);
    let pollMs = POLL_MS;
    for (;;) {
      await this.#sleep(pollMs);
      pollMs = Math.min(pollMs * 1.5, MAX_POLL_MS);
      const csr = await api.get(name).catch((err: unknown) => {
        this.#o.served.setWaiting(waitingFor(`cannot be read: ${err instanceof Error ? err.message : String(err)}`));
        return null;
      });
      if (csr === null) continue;
      if (csr === undefined) throw new Error(waitingFor('was deleted before a certificate was issued'));
      const conditions = csr.status?.conditions ?? [];
      const finished = conditions.find((c) => (c.type === 'Denied' || c.type === 'Failed') && c.status === 'True');
      if (finished !== undefined) throw new Error(waitingFor(`was ${finished.type === 'Denied' ? 'denied' : 'failed'} (${finished.reason ?? ''}): ${finished.message ?? ''}`));
      const certificate = csr.status?.certificate ?? '';
      if (certificate === '') {
        if (conditions.some((c) => c.type === 'Approved' && c.status === 'True')) this.#o.served.setWaiting(waitingFor('is approved and waits for the signer'));
        continue;
      }
      await this.#install(name, Buffer.from(certificate, 'base64').toString('utf8'), held);
      return;
    }
  }

  /**
   * Judges what was issued by the rule the held certificate is judged by; writes it beside the key and has it served when
   * kept, or when merely due for renewal and better than what is held. Throws (a failure, retried with backoff) when not kept.
   */
  async #install(csrName: string, pem: string, held: CertificateAssessment): Promise<void> {
    const issued = await this.#assess(pem);
    const servedAnyway = !issued.keep && issued.servable && !(held.keep || (held.servable && (held.notAfter ?? 0) >= (issued.notAfter ?? 0)));
    if (issued.keep || servedAnyway) {
      const tmp = `${this.#o.files.certFile}.new`;
      await writeFile(tmp, pem, { mode: 0o644 });
      await rename(tmp, this.#o.files.certFile);
      await this.#o.served.reload();
    }
    if (!issued.keep) {
      throw new Error(`CertificateSigningRequest ${csrName} was issued a certificate this node does not keep${servedAnyway ? ' (served until a better one comes)' : ''}: ${issued.why}`);
    }
    const leaf = parseCertificates(pem)[0];
    this.#log.info({ csr: csrName, serial: leaf?.serialNumber, not_after: new Date(issued.notAfter).toISOString(), renew_at: new Date(issued.renewAt).toISOString() }, 'node certificate issued and served');
  }
}
