// The peers /assemble may fetch parts from in a cluster: the RecorderNodes' internal URLs (plus any static cluster.peers).
import type { PeerDirectory } from '../peers/peer-directory.js';
import type { ClusterView } from './cluster-view.js';

/** host:port of a base URL, as assembly parts name their peer (`peer_addr`). */
export function hostPortOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return `${u.hostname.includes(':') ? `[${u.hostname}]` : u.hostname}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
  } catch {
    return undefined;
  }
}

export function clusterPeerDirectory(view: ClusterView, staticPeers: PeerDirectory): PeerDirectory {
  const urlOf = (addr: string): string | undefined => {
    for (const rn of view.recorderNodes.list()) {
      const { url } = view.urlsOf(rn.metadata.name ?? '');
      if (url !== undefined && hostPortOf(url) === addr) return url.replace(/\/+$/, '');
    }
    return staticPeers.urlOf(addr);
  };
  return { isKnownPeer: (addr) => urlOf(addr) !== undefined, urlOf };
}
