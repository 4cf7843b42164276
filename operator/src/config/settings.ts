// The settings file (--settings, rendered by the chart into a ConfigMap): what the recorder Pods are made of.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { DEFAULT_RECORDER_SIGNER } from '@vigil/crds';
import { z } from 'zod';

const name = z.string().min(1).max(253).regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, { message: 'must be a Kubernetes object name (lowercase letters, digits, "-", ".")' });
/**
 * A non-negative resource quantity as the API server parses it (apimachinery's Quantity grammar: a number, then a
 * binary suffix Ki..Ei, a decimal one n, u, m, k, M, G, T, P, E, or an exponent): `1Gb` or `1 Gi` are refused here
 * rather than by the API server on every Pod create.
 */
export const QUANTITY_PATTERN = /^([0-9]+(\.[0-9]*)?|\.[0-9]+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+))?$/;
const quantity = z.union([
  z.string().regex(QUANTITY_PATTERN, { message: 'must be a Kubernetes quantity such as 500m, 1, 1.5, 256Mi or 1Gi (binary suffixes Ki, Mi, Gi, Ti; decimal k, M, G, T; "Gb" or "MB" are not quantities)' }),
  z.number().nonnegative(),
]);
const resourceList = z.object({ cpu: quantity.optional(), memory: quantity.optional(), 'ephemeral-storage': quantity.optional() }).strict();
const absolutePath = z.string().regex(/^\/\S*$/, { message: 'must be an absolute path' });
const port = z.number().int().min(1).max(65535);
/** A host name, or a template of one with `{node}` (the node's DNS label). */
const hostTemplate = z.string().regex(/^[a-z0-9]([a-z0-9.{}-]*[a-z0-9}])?$/, { message: 'must be a host name, optionally with "{node}", e.g. "{node}.recorders.example.com"' });

/**
 * TLS between the recorders (kubernetes.md "Node certificates"): each recorder Pod's own key and a certificate for its
 * names through the Kubernetes CSR API, approved by the operator; signed by the release CA (`sign: true`) or by the
 * signer the name designates (cert-manager).
 */
const tlsSettings = z
  .object({
    /** The signer the recorders' requests name; the operator approves those (and only those) that are a node's own. */
    signerName: z.string().regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?$/, { message: 'must be a signer name "domain/name", e.g. vigil.io/recorder-serving or issuers.cert-manager.io/vigil.vigil-ca' }).default(DEFAULT_RECORDER_SIGNER),
    /** true: the operator signs with the release CA (Secret vigil-ca) and publishes its certificate (ConfigMap vigil-ca). */
    sign: z.boolean().default(true),
    /** How long a node certificate the operator signs is valid (a node renews after two thirds of it). */
    certificateLifetimeSeconds: z.number().int().min(60).max(10 * 366 * 86400).default(90 * 86400),
    /** The cluster's DNS domain: a node's certificate names <service>.<namespace>.svc.<clusterDomain> too. */
    clusterDomain: z.string().regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, { message: 'must be a DNS domain such as cluster.local' }).default('cluster.local'),
    /** More names every node's certificate carries (each may contain {node}), e.g. a host per node in an internal zone. */
    extraDnsNames: z.array(hostTemplate).default([]),
    /** What the recorder Pods mount as cluster.tls.ca_file: the release CA's ConfigMap, or a bundle cert-manager/trust-manager keeps. */
    caBundle: z
      .object({ configMap: name.optional(), secret: name.optional(), key: z.string().min(1).default('ca.crt') })
      .strict()
      .refine((b) => (b.configMap === undefined) !== (b.secret === undefined), { message: 'must name exactly one of configMap or secret' })
      .default({ configMap: 'vigil-ca', key: 'ca.crt' }),
  })
  .strict()
  .refine((t) => !t.sign || (t.caBundle.configMap === 'vigil-ca' && t.caBundle.key === 'ca.crt'), {
    message: 'with sign: true the recorders trust the release CA, which the operator publishes in ConfigMap vigil-ca (key ca.crt); name another bundle only with sign: false',
    path: ['caBundle'],
  });

export const settingsSchema = z
  .object({
    recorder: z
      .object({
        image: z.string().min(1),
        imagePullPolicy: z.enum(['Always', 'IfNotPresent', 'Never']).default('IfNotPresent'),
        /** The recorder's config.yaml; its content hash is part of the Pod template, so a change rolls the Pods. */
        configMap: name,
        configKey: z.string().min(1).default('config.yaml'),
        /**
         * The chart's shared recorder rules, bound by the operator to each node's own ServiceAccount (which the
         * operator makes, with a Role for that node's heartbeat Lease alone).
         */
        rbac: z
          .object({
            clusterRole: z.string().min(1).max(200).regex(/^[^/%]+$/, { message: 'must be a ClusterRole name' }),
            role: z.string().min(1).max(253).regex(/^[^/%]+$/, { message: 'must be a Role name' }),
          })
          .strict(),
        /** Registry Secrets the nodes' ServiceAccounts carry (the chart's imagePullSecrets). */
        imagePullSecrets: z.array(name).default([]),
        secrets: z
          .object({
            /** API tokens file (auth.tokens_file), mounted at /etc/vigil/secrets/api-tokens/. */
            apiTokens: name,
            /** Cluster token (auth.cluster_token_file), mounted at /etc/vigil/secrets/cluster-token/. */
            clusterToken: name,
            /** License, key `vigil.lic`, mounted at /etc/vigil/vigil.lic. */
            license: name.optional(),
            /** Database URL Secret, key `url`, given as VIGIL_DATABASE_URL. */
            database: name.optional(),
          })
          .strict(),
        /**
         * hostPath roots on every node. prepare: an init container (root, with only CHOWN) creates them and gives them to
         * the recorder's user; false: they must exist, owned by uid 10001, and no container runs as root.
         */
        hostPaths: z
          .object({
            recordings: absolutePath.default('/var/lib/vigil/recordings'),
            data: absolutePath.default('/var/lib/vigil/data'),
            prepare: z.boolean().default(true),
          })
          .strict()
          .default({ recordings: '/var/lib/vigil/recordings', data: '/var/lib/vigil/data', prepare: true }),
        /** The recorder container's resources (every container of the Pod has some: Pod Security and quotas ask for them). */
        resources: z
          .object({ requests: resourceList.optional(), limits: resourceList.optional() })
          .strict()
          .default({ requests: { cpu: '500m', memory: '256Mi' }, limits: { memory: '1Gi' } }),
        ports: z.object({ api: port.default(9997), metrics: port.default(9998) }).strict().default({ api: 9997, metrics: 9998 }),
        terminationGracePeriodSeconds: z.number().int().min(11).max(3600).default(30),
      })
      .strict(),
    /**
     * Secrets a Camera's credentialsSecretRef may never name (the release's own: tokens, database, license): their data is
     * never copied into the camera credentials Secret the recorders read. The Secrets of recorder.secrets are always refused.
     */
    reservedSecrets: z.array(name).default([]),
    /**
     * A cluster-scoped object of the release (its ClusterRole) that owns the RecorderNodes: deleting it (helm uninstall)
     * deletes them, and with them nothing of Vigil keeps running.
     */
    ownerClusterRole: name.optional(),
    /** Per-node Ingress rules (one host per node) for the 307 redirects through the Ingress. */
    ingress: z
      .object({
        hostTemplate: z.string().regex(/^[a-z0-9.{}-]*\{node\}[a-z0-9.{}-]*$/, { message: 'must contain "{node}" and otherwise only host-name characters, e.g. "{node}.vigil.example.com"' }),
        className: z.string().min(1).optional(),
        tlsSecretName: name.optional(),
        /** Annotations of every per-node Ingress (the chart's ingress.annotations; backend-protocol HTTPS with TLS). */
        annotations: z.record(z.string(), z.string()).default({}),
      })
      .strict()
      .optional(),
    tls: tlsSettings.optional(),
  })
  .strict();

export type Settings = z.infer<typeof settingsSchema>;

export class SettingsError extends Error {
  constructor(file: string, problems: string[]) {
    super(`settings file ${file} is not valid:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'SettingsError';
  }
}

/** Validates parsed settings; the error names each key to fix. */
export function parseSettings(raw: unknown, file = '<settings>'): Settings {
  const result = settingsSchema.safeParse(raw ?? {});
  if (result.success) return result.data;
  throw new SettingsError(file, result.error.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : '(top level)'}: ${i.message}`));
}

export function loadSettings(file: string): Settings {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new SettingsError(file, [`cannot be read: ${(err as Error).message}`]);
  }
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (err) {
    throw new SettingsError(file, [`is not YAML: ${(err as Error).message}`]);
  }
  return parseSettings(raw, file);
}
