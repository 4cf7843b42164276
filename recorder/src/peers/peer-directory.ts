// The nodes this one may fetch assembly parts from (peer_addr host:port → base URL); anything else is refused (no SSRF).

export interface PeerDirectory {
  isKnownPeer(peerAddr: string): boolean;
  /** The base URL of a known peer (no trailing slash), undefined for any other address. */
  urlOf(peerAddr: string): string | undefined;
}

/** The `cluster.peers` list of the configuration: plain HTTP on each host:port. */
export function staticPeerDirectory(peers: readonly string[]): PeerDirectory {
  const known = new Set(peers);
  return {
    isKnownPeer: (addr) => known.has(addr),
    urlOf: (addr) => (known.has(addr) ? `http://${addr}` : undefined),
  };
}
