// Where a camera lives in a cluster: here when this node records it, at the owner's URL when another node does. This
// node's own cameras (and the ones it hands over) come from its caches; any other camera is looked up on demand.
import type { CameraLocator, RemoteCamera } from '../cameras/camera-locator.js';
import type { Camera } from '../cameras/camera.js';
import type { ClusterLookups } from './cluster-lookups.js';
import type { CameraObject, ClusterView } from './cluster-view.js';

type Owner = Omit<RemoteCamera, 'id' | 'recording' | 'ptz'>;

export function clusterLocator(view: ClusterView, lookups: ClusterLookups, registry: { get(id: string): Camera | undefined }, nodeName: string): CameraLocator {
  /**
   * The node recording `resource` when it is another node with a known URL: the one its heartbeat reports (known from
   * its first renewal, current after a restart), else its RecorderNode status (the operator's copy), else the Camera's.
   */
  const ownerOf = async (resource: CameraObject | undefined): Promise<Owner | undefined> => {
    const owner = resource?.status?.node;
    if (owner === undefined || owner === '' || owner === nodeName) return undefined;
    const urls = view.urlsOf(owner, await lookups.nodeLease(owner));
    const url = urls.url ?? resource?.status?.url;
    return url === undefined || url === '' ? undefined : { node: owner, url, publicUrl: urls.publicUrl };
  };
  return {
    nodeName,
    locate: async (id) => {
      const cached = view.camera(id);
      if (cached !== undefined) {
        // The old side of a handover sends callers to the new owner already.
        const owner = await ownerOf(cached);
        if (owner !== undefined) return { kind: 'remote', ...owner };
        return registry.get(id) === undefined ? { kind: 'unknown' } : { kind: 'local' };
      }
      // Recorded here without the caches knowing (they have not listed yet; the API is away): the registry decides.
      if (registry.get(id) !== undefined) return { kind: 'local' };
      let resource: CameraObject | undefined;
      try {
        resource = await lookups.camera(id);
      } catch {
        return { kind: 'unknown' }; // the API cannot be reached and this camera was never looked up
      }
      const owner = await ownerOf(resource);
      return owner === undefined ? { kind: 'unknown' } : { kind: 'remote', ...owner };
    },
    remoteCameras: async () => {
      const remote = await Promise.all((await lookups.cameras()).map(async (resource) => {
        const id = resource.metadata.name ?? '';
        const owner = await ownerOf(view.camera(id) ?? resource);
        return owner === undefined ? [] : [{ id, ...owner, recording: resource.status?.phase === 'Recording', ptz: resource.spec.ptz ?? false }];
      }));
      return remote.flat();
    },
  };
}
