// Names of the node certificate contract (kubernetes.md "Node certificates"): the signer the recorders ask, the release
// CA's Secret and the ConfigMap that publishes its certificate, and what a node's request may ask for.

/** The signer a recorder names in its CertificateSigningRequest when the chart does not name cert-manager's. */
export const DEFAULT_RECORDER_SIGNER = 'vigil.io/recorder-serving';

/** The release CA (built-in signer): its key and certificate, readable by the operator alone (type kubernetes.io/tls). */
export const CA_SECRET_NAME = 'vigil-ca';
/** The next release CA while a rotation is under way (made a year before the current one ends, or brought by you). */
export const CA_NEXT_SECRET_NAME = 'vigil-ca-next';
/** The release CA's certificate (the trust bundle while a rotation is under way), published for the recorder Pods to mount as cluster.tls.ca_file. */
export const CA_CONFIGMAP_NAME = 'vigil-ca';
/** The key of the CA certificate in that ConfigMap (and in trust-manager bundles, by convention). */
export const CA_BUNDLE_KEY = 'ca.crt';

/** The usages a node asks for: a TLS server (and a TLS client, for mutual TLS, which nodes do not use yet). */
export const NODE_CERTIFICATE_USAGES = ['digital signature', 'server auth'] as const;

/** A node renews once this share of its certificate's lifetime has passed. */
export const RENEW_AT_FRACTION = 2 / 3;

/** The operator deletes a node's finished (issued, denied, failed) requests an hour after they finished. */
export const FINISHED_REQUEST_TTL_MS = 3600_000;
