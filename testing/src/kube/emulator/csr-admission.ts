// The certificates/approval and certificates/signing admission plugins: approving a CSR needs `approve`, and writing its
// certificate needs `sign`, on the synthetic resource `signers` (group certificates.k8s.io) named by its signerName or
// "<domain>/*". Stricter than kube-apiserver on one point: a certificate is refused on a CSR that is not Approved.
import type { AdmissionAttributes, ValidatingAdmission } from './admission.js';
import { isApproved } from './csr-strategy.js';
import { CSR_STORAGE_KEY } from './csr-validation.js';
import type { RbacAuthorizer } from './rbac-authorizer.js';
import { forbidden, invalid } from './status-errors.js';
import { isRecord, type UserInfo } from './types.js';

function signerNameOf(o: unknown): string {
  return isRecord(o) && isRecord(o.spec) && typeof o.spec.signerName === 'string' ? o.spec.signerName : '';
}

function certificateOf(o: unknown): unknown {
  return isRecord(o) && isRecord(o.status) ? o.status.certificate : undefined;
}

export class CertificateSignerAdmission implements ValidatingAdmission {
  constructor(private readonly rbac: RbacAuthorizer) {}

  /** IsAuthorizedForSignerName: the signer name itself, else its domain's wildcard. */
  private authorized(user: UserInfo, verb: string, signerName: string): boolean {
    const domain = signerName.split('/')[0] ?? '';
    return [signerName, `${domain}/*`].some((name) => this.rbac.allowsResource(user, { verb, group: 'certificates.k8s.io', resource: 'signers', name }));
  }

  validate(a: AdmissionAttributes): void {
    if (a.type.storageKey !== CSR_STORAGE_KEY || a.operation !== 'UPDATE' || a.user === undefined) return;
    const signerName = signerNameOf(a.oldObject);
    const subject = `certificatesigningrequests.certificates.k8s.io "${a.name}" is forbidden`;
    if (a.subresource === 'approval' && !this.authorized(a.user, 'approve', signerName)) {
      throw forbidden(`${subject}: user not permitted to approve requests with signerName "${signerName}"`, { name: a.name, group: 'certificates.k8s.io', kind: 'certificatesigningrequests' });
    }
    if (a.subresource === 'status' && certificateOf(a.object) !== certificateOf(a.oldObject)) {
      if (!this.authorized(a.user, 'sign', signerName)) {
        throw forbidden(`${subject}: user not permitted to sign requests with signerName "${signerName}"`, { name: a.name, group: 'certificates.k8s.io', kind: 'certificatesigningrequests' });
      }
      if (!isApproved(a.object)) {
        throw invalid(a.type, a.name, [{ reason: 'FieldValueForbidden', field: 'status.certificate', message: 'Forbidden: a certificate may only be issued for an Approved request' }]);
      }
    }
  }
}
