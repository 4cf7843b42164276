// Why a cluster endpoint could not do what it was asked (mapped to HTTP statuses in http/).

export type ClusterErrorKind = 'node_not_found' | 'cluster_unreachable' | 'invalid_membership';

export class ClusterRequestError extends Error {
  constructor(
    readonly kind: ClusterErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'ClusterRequestError';
  }
}
