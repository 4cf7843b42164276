// @vigil/kube: Vigil's Kubernetes layer. api/ is a small JSON client of the API server (REST, watch, server-side
// apply, informers, conflict retries) with the resources Vigil uses; membership/ holds Vigil's cluster rules that the
// operator and every recorder share (who is online, a member, settled; quorum; what a heartbeat Lease reports).
export * from './api/client.js';
export * from './api/clock.js';
export * from './api/concurrency.js';
export * from './api/conflict-retry.js';
export * from './api/informer.js';
export * from './api/semantic-equality.js';
export * from './api/resources.js';
export * from './api/types.js';
export * from './membership/node-report.js';
export * from './membership/node-view.js';
export * from './membership/quorum.js';
export * from './certificates/certificate-authority.js';
export * from './certificates/signing-request.js';
export { pemBlocks, toPem } from './certificates/der.js';
