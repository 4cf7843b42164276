// The nodes this one may fetch assembly parts from (peer_addr host:port → base URL); anything else is refused (no SSRF).

export interface PeerDirectory {
  isKnownPeer(peerAddr: string): boolean;
  /** The base URL of a known peer (no trailing slash), undefined for any other address. */
  urlOf(peerAddr: string): string | undefined;
  /**
   * The name the peer's certificate must carry when it is not the URL's host: a cluster node is checked as the node it
   * is (its Service name), whatever address reaches it. Undefined: the URL's host.
   */
  tlsNameOf?(peerAddr: string): string | undefined;
}

/** The `cluster.peers` list of the configuration: each host:port over HTTPS when the nodes serve TLS (`tls` set), else plain HTTP. */
export function staticPeerDirectory(peers: readonly string[], scheme: 'http' | 'https' = 'http'): PeerDirectory {
  const known = new Set(peers);
  return {
    isKnownPeer: (addr) => known.has(addr),
    urlOf: (addr) => (known.has(addr) ? `${scheme}://${addr}` : undefined),
  };
}
