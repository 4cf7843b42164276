// While a node waits for its certificate (tls.kubernetes_csr), its API is not served: every request but the health
// probes (the kubelet's, which do not check the provisional certificate) is answered 503 certificate_pending.
import type { FastifyInstance } from 'fastify';
import { ApiError } from './error-catalogue.js';

/** What the node waits for (a sentence), or undefined once it serves its issued certificate. */
export type CertificateWait = () => string | undefined;

const ALWAYS_ANSWERED = new Set(['/api/health/live', '/api/health/ready']);

export function pendingCertificateError(waiting: string): ApiError {
  return new ApiError('certificate_pending', `this node is waiting for its certificate (${waiting}); its API is served once it has one`);
}

export function installCertificateGate(app: FastifyInstance, waiting: CertificateWait): void {
  app.addHook('onRequest', async (req) => {
    const reason = waiting();
    if (reason === undefined) return;
    const path = req.url.split('?')[0] ?? '';
    if (!ALWAYS_ANSWERED.has(path)) throw pendingCertificateError(reason);
  });
}
