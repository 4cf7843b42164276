// The peers /assemble may fetch parts from in a cluster: the RecorderNodes' internal URLs (plus any static cluster.peers).
import { recorderServiceHost } from '@vigil/crds';
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

export function clusterPeerDirectory(view: ClusterView, staticPeers: PeerDirectory, namespace: string): PeerDirectory {
  const nodeAt = (addr: string): { node: string; url: string } | undefined => {
    for (const rn of view.recorderNodes.list()) {
      const node = rn.metadata.name ?? '';
      const { url } = view.urlsOf(node);
      if (url !== undefined && hostPortOf(url) === addr) return { node, url: url.replace(/\/+$/, '') };
    }
    return undefined;
  };
  const urlOf = (addr: string): string | undefined => nodeAt(addr)?.url ?? staticPeers.urlOf(addr);
  return {
    isKnownPeer: (addr) => urlOf(addr) !== undefined,
    urlOf,
    // A RecorderNode's recorder must present the certificate of its own Service, at whatever address it is reached.
    tlsNameOf: (addr) => {
      const at = nodeAt(addr);
      return at === undefined ? undefined : recorderServiceHost(at.node, namespace);
    },
  };
}
