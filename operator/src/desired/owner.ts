// The owner reference every per-node object carries: its RecorderNode (deleting the RecorderNode deletes them).
import { API_VERSION, RECORDER_NODE_KIND, type OwnerReference, type RecorderNode } from '@vigil/crds';

export function ownerOf(rn: RecorderNode): OwnerReference {
  return { apiVersion: API_VERSION, kind: RECORDER_NODE_KIND, name: rn.metadata.name ?? '', uid: rn.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
}
