// The configuration schema (config.yaml + conf.d/*.yaml): every key, its default and its rule.
import { z } from 'zod';

export const CAMERA_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const LISTEN_PATTERN = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]*):\d{1,5}$/;

/** Per-camera retention: only the age limit; free space is a property of the disk, set globally. */
const retentionSchema = z
  .object({
    max_age_days: z.number().positive().optional(),
  })
  .strict();

const recordSchema = z
  .object({
    format: z.enum(['fmp4', 'mp4']).optional(),
    segment_seconds: z.number().int().min(1).max(3600).optional(),
    retention: retentionSchema.optional(),
  })
  .strict();

const sourceSchema = z
  .string()
  .min(1)
  .refine((s) => /^(rtsps?:\/\/|testsrc(:|$)|file:|\/)/.test(s), {
    message: 'must be an rtsp:// or rtsps:// URL, testsrc[:options], file:PATH or an absolute file path',
  });

export const cameraSchema = z
  .object({
    id: z.string().regex(CAMERA_ID_PATTERN, { message: `must match ${CAMERA_ID_PATTERN.source}` }),
    source: sourceSchema,
    ptz: z.boolean().default(false),
    snapuri: z.string().url().optional(),
    /** ONVIF device service for PTZ, `http(s)://host[:port][/path]`; default: the RTSP host on port 80, path /onvif/device_service. */
    onvif: z
      .string()
      .url()
      .refine((s) => /^https?:\/\/[^/@]+(?:\/|$)/.test(s), { message: 'must be an http:// or https:// URL without credentials (they come from source)' })
      .optional(),
    audio: z.enum(['auto', 'off', 'transcode']).default('auto'),
    /** How RTSP is read: `native` (in the recorder) or `ffmpeg` (one process per camera); default: the global `ingest`. */
    ingest: z.enum(['native', 'ffmpeg']).optional(),
    /**
     * `auto` (default): RTP over the RTSP connection (TCP: passes firewalls and NAT, never reorders) first, over UDP port
     * pairs when the camera refuses TCP, TCP again when no RTP comes over UDP; what worked is remembered. `tcp` or
     * `udp` pins one.
     */
    rtsp_transport: z.enum(['auto', 'tcp', 'udp']).default('auto'),
    record: recordSchema.optional(),
  })
  .strict();

/** A base URL other nodes and callers can use: http(s), no credentials, no query. */
const baseUrlSchema = z
  .string()
  .url()
  .refine((s) => /^https?:\/\/[^/@?#]+(\/[^?#]*)?$/.test(s), { message: 'must be an http:// or https:// base URL without credentials, query or fragment' });

/** Kubernetes namespace names are DNS labels. */
const NAMESPACE_PATTERN = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** A host name a certificate may be for (the DNS names of a node's request). */
const DNS_NAME = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$/;

/**
 * HTTPS on `listen`, from one of two sources: files (the node's certificate, full chain, PEM, and its private key,
 * re-read when they change), or — in cluster mode on Kubernetes — the node's own key and a certificate issued through
 * the CSR API, kept in cluster.dataDir/node_<name>/tls/ (kubernetes.md "Node certificates").
 */
const tlsSchema = z
  .object({
    /** PEM: the node's own certificate first, then the intermediates that issued it. */
    cert_file: z.string().min(1).optional(),
    /** PEM: the private key of the first certificate of cert_file (unencrypted). */
    key_file: z.string().min(1).optional(),
    kubernetes_csr: z
      .object({
        /** The signer the node's CertificateSigningRequest names. */
        signer_name: z.string().regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?$/, { message: 'must be a signer name "domain/name"' }).default('vigil.io/recorder-serving'),
        /** The names the certificate is for (the operator sets them per Pod: VIGIL_TLS_DNS_NAMES, comma-separated). */
        dns_names: z.preprocess(
          (v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter((s) => s !== '') : v),
          z.array(z.string().regex(DNS_NAME, { message: 'must be a lower-case DNS name' })).min(1, { message: 'at least one name is required (VIGIL_TLS_DNS_NAMES)' }),
        ),
      })
      .strict()
      .optional(),
  })
  .strict()
  .superRefine((t, ctx) => {
    const files = t.cert_file !== undefined || t.key_file !== undefined;
    if (files && t.kubernetes_csr !== undefined) ctx.addIssue({ code: 'custom', path: ['kubernetes_csr'], message: 'cannot be combined with cert_file and key_file: the certificate comes from the files or from the CSR API, not both' });
    else if (!files && t.kubernetes_csr === undefined) ctx.addIssue({ code: 'custom', message: 'set cert_file and key_file, or kubernetes_csr' });
    else if (files && (t.cert_file === undefined || t.key_file === undefined)) ctx.addIssue({ code: 'custom', path: [t.cert_file === undefined ? 'cert_file' : 'key_file'], message: 'cert_file and key_file go together' });
  });

export const tokenSchema = z
  .object({
    name: z.string().min(1),
    role: z.enum(['viewer', 'operator', 'admin']),
    sha256: z.string().regex(/^[0-9a-f]{64}$/i, { message: 'must be the hex SHA-256 of the token (64 hex digits)' }),
  })
  .strict();

function streamLimitSchema(perNode: number, perToken: number) {
  return z
    .object({
      per_node: z.number().int().min(1).max(100_000).default(perNode),
      per_token: z.number().int().min(1).max(100_000).default(perToken),
    })
    .strict()
    .default({ per_node: perNode, per_token: perToken });
}

/** Open long-lived answers: live viewers (WebSocket) and play streams, per node and per token; past either, 429. */
export const streamsSchema = z
  .object({
    live: streamLimitSchema(500, 100),
    play: streamLimitSchema(100, 16),
  })
  .strict()
  .default({ live: { per_node: 500, per_token: 100 }, play: { per_node: 100, per_token: 16 } });

export const configSchema = z
  .object({
    nodeName: z.string().max(253).default(''),
    listen: z
      .string()
      .regex(LISTEN_PATTERN, { message: 'must be "host:port" or ":port"' })
      .refine((s) => Number(s.slice(s.lastIndexOf(':') + 1)) <= 65535, { message: 'port must be 0 to 65535' })
      .optional(),
    record_path: z.string().min(1).default('/var/lib/vigil/recordings'),
    work_dir: z.string().min(1).default('/var/lib/vigil'),
    log_file: z.string().min(1).optional(),
    log_level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
    ffmpeg_path: z.string().min(1).default('ffmpeg'),
    stall_seconds: z.number().positive().max(600).default(10),
    /** How RTSP cameras are read unless a camera says otherwise: `native` in the recorder, or one `ffmpeg` per camera. */
    ingest: z.enum(['native', 'ffmpeg']).default('native'),
    /**
     * Native ingest reads every camera's socket together once per tick (milliseconds; 0 = as data arrives): fewer,
     * larger reads cost far less CPU, and a tick adds at most its length to live latency.
     */
    ingest_read_tick_ms: z.number().int().min(0).max(200).default(20),
    /**
     * The tick for cameras nobody watches live at the moment (only recorded, written in 200 ms batches anyway): longer
     * ticks mean fewer reads. Never shorter than ingest_read_tick_ms (a shorter value is raised to it).
     */
    ingest_idle_read_tick_ms: z.number().int().min(0).max(1000).default(100),
    record: z
      .object({
        format: z.enum(['fmp4', 'mp4']).default('fmp4'),
        segment_seconds: z.number().int().min(1).max(3600).default(60),
        retention: z
          .object({
            max_age_days: z.number().positive().optional(),
            min_free_percent: z.number().min(0).max(99).default(5),
            interval_seconds: z.number().int().min(1).max(86400).default(60),
          })
          .strict()
          .default({ min_free_percent: 5, interval_seconds: 60 }),
      })
      .strict()
      .default({ format: 'fmp4', segment_seconds: 60, retention: { min_free_percent: 5, interval_seconds: 60 } }),
    auth: z
      .object({
        tokens: z.array(tokenSchema).default([]),
        /** A YAML list of tokens like `tokens` (a mounted Secret); read again when it changes, added to `tokens`. */
        tokens_file: z.string().min(1).optional(),
        disabled: z.boolean().default(false),
        cluster_token_file: z.string().min(1).optional(),
      })
      .strict()
      .default({ tokens: [], disabled: false }),
    media_tool: z.string().min(1).default('ffmpeg'),
    jobs: z
      .object({
        result_ttl_seconds: z.number().int().min(1).max(7 * 86400).default(3600),
        min_free_bytes: z.number().int().min(0).default(1_073_741_824),
      })
      .strict()
      .default({ result_ttl_seconds: 3600, min_free_bytes: 1_073_741_824 }),
    cluster: z
      .object({
        /** Cluster mode: cameras from Camera resources assigned to this node (Kubernetes). */
        enabled: z.boolean().default(false),
        /** Where the Camera resources, Leases and Secrets live; default: the ServiceAccount's namespace, else the kubeconfig's. */
        namespace: z.string().regex(NAMESPACE_PATTERN, { message: 'must be a Kubernetes namespace name (a DNS label)' }).optional(),
        /** The node's cluster state (the cached assignment) lives in dataDir/node_<name>/. */
        dataDir: z.string().min(1).default('/var/lib/vigil/data'),
        /** This node's base URL inside the cluster (its Service): other nodes and 307s use it. */
        advertise_url: baseUrlSchema.optional(),
        /** This node's base URL through the Ingress, for 307s to callers outside the cluster. */
        public_url: baseUrlSchema.optional(),
        peers: z.array(z.string().regex(/^[A-Za-z0-9.-]+:\d{1,5}$|^\[[0-9A-Fa-f:.]+\]:\d{1,5}$/, { message: 'must be "host:port"' })).default([]),
        /** How this node checks the certificates of the nodes it calls (assembly parts). */
        tls: z
          .object({
            /** PEM bundle of the CA(s) that issue the nodes' certificates; default: the system's trusted CAs. */
            ca_file: z.string().min(1).optional(),
          })
          .strict()
          .optional(),
      })
      .strict()
      .superRefine((cluster, ctx) => {
        if (cluster.enabled && cluster.advertise_url === undefined) {
          ctx.addIssue({ code: 'custom', path: ['advertise_url'], message: 'is required when cluster.enabled is true (the URL other nodes and redirects use for this node)' });
        }
      })
      .default({ enabled: false, dataDir: '/var/lib/vigil/data', peers: [] }),
    streams: streamsSchema,
    archive: z
      .object({
        rescan_minutes: z.number().positive().max(10_080).default(10),
      })
      .strict()
      .default({ rescan_minutes: 10 }),
    tls: tlsSchema.optional(),
    database: z
      .object({
        url: z.string().regex(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// or postgresql:// URL' }),
        camera_poll_seconds: z.number().positive().max(3600).default(5),
        statement_timeout_ms: z.number().int().min(100).max(600_000).default(5000),
      })
      .strict()
      .optional(),
    metrics: z
      .object({
        /** Prometheus scrape listener, path /metrics; ":port" follows the same loopback rule as `listen`. */
        listen: z
          .string()
          .regex(LISTEN_PATTERN, { message: 'must be "host:port" or ":port"' })
          .refine((s) => Number(s.slice(s.lastIndexOf(':') + 1)) <= 65535, { message: 'port must be 0 to 65535' })
          .default(':9998'),
      })
      .strict()
      .default({ listen: ':9998' }),
    license_file: z.string().min(1).default('/etc/vigil/vigil.lic'),
    license: z
      .object({
        /** Ed25519 public key that license signatures are checked against: PEM, or base64 of the raw 32 bytes. */
        public_key: z.string().min(1).optional(),
        required: z.boolean().default(false),
      })
      .strict()
      .default({ required: false }),
    cameras: z.array(cameraSchema).default([]),
  })
  .strict()
  .superRefine((cfg, ctx) => {
    const seen = new Map<string, number>();
    cfg.cameras.forEach((cam, i) => {
      const first = seen.get(cam.id);
      if (first !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['cameras', i, 'id'], message: `duplicates cameras[${first}].id "${cam.id}"` });
      }
      seen.set(cam.id, i);
    });
    if (cfg.tls?.kubernetes_csr !== undefined && !cfg.cluster.enabled) {
      ctx.addIssue({ code: 'custom', path: ['tls', 'kubernetes_csr'], message: 'needs cluster.enabled: true (the certificate is asked for through the Kubernetes API)' });
    }
    // Other nodes and 307s use advertise_url: with TLS on, this node answers plain HTTP with an error only.
    if (cfg.tls !== undefined && cfg.cluster.enabled && cfg.cluster.advertise_url?.startsWith('http://') === true) {
      ctx.addIssue({ code: 'custom', path: ['cluster', 'advertise_url'], message: 'must be an https:// URL when tls is set (this node serves HTTPS only)' });
    }
  });

export type VigilConfig = z.infer<typeof configSchema>;
export type CameraConfigEntry = z.infer<typeof cameraSchema>;
export type Role = z.infer<typeof tokenSchema>['role'];
