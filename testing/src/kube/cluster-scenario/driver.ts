// The small surface a cluster scenario needs from where it runs: kubectl, the API's base URL and token, and a way to reach a node.
export interface ClusterDriver {
  /** Runs kubectl against the cluster (namespace flags are the caller's); resolves to stdout, rejects on a non-zero exit. */
  kubectl(args: string[], input?: string): Promise<string>;
  /** Base URL of the Vigil API as this process reaches it (a port-forward to the API Service, or a loopback recorder). */
  apiBase(): string;
  /** An API token (admin for the /cluster endpoints). */
  readonly token: string;
  /**
   * A URL this process can fetch for a URL a 307 named (a node's internal Service URL inside a cluster): a kind driver
   * opens a port-forward to that Service; a loopback driver returns the URL as it is.
   */
  reach(url: string): Promise<string>;
  /** fetch() for the API (default: the global one); a driver that checks certificates against a CA of its own gives one. */
  readonly fetch?: (url: string, init: RequestInit) => Promise<Response>;
}

/** A driver for recorders that are local processes: every URL is reachable as it is. */
export function loopbackDriver(opts: { apiBase: string; token: string; kubectl: (args: string[], input?: string) => Promise<string> }): ClusterDriver {
  return { kubectl: opts.kubectl, apiBase: () => opts.apiBase, token: opts.token, reach: (url) => Promise.resolve(url) };
}
