// Where a camera lives in a cluster: here when this node records it, at the owner's URL when another node does.
import type { CameraLocator, RemoteCamera } from '../cameras/camera-locator.js';
import type { Camera } from '../cameras/camera.js';
import type { ClusterView } from './cluster-view.js';

export function clusterLocator(view: ClusterView, registry: { get(id: string): Camera | undefined }, nodeName: string): CameraLocator {
  const ownerOf = (id: string): Omit<RemoteCamera, 'id' | 'recording' | 'ptz'> | undefined => {
    const owner = view.camera(id)?.status?.node;
    if (owner === undefined || owner === '' || owner === nodeName) return undefined;
    const urls = view.urlsOf(owner);
    const url = urls.url ?? view.camera(id)?.status?.url;
    return url === undefined || url === '' ? undefined : { node: owner, url, publicUrl: urls.publicUrl };
  };
  return {
    nodeName,
    locate: (id) => {
      // Another node is assigned the camera: even the old side of a handover sends callers to the new owner.
      const owner = ownerOf(id);
      if (owner !== undefined) return { kind: 'remote', ...owner };
      return registry.get(id) === undefined ? { kind: 'unknown' } : { kind: 'local' };
    },
    remoteCameras: () =>
      view.cameras.list().flatMap((resource) => {
        const id = resource.metadata.name ?? '';
        const owner = ownerOf(id);
        if (owner === undefined) return [];
        return [{ id, ...owner, recording: resource.status?.phase === 'Recording', ptz: resource.spec.ptz ?? false }];
      }),
  };
}
