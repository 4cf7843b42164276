// Builders of Camera, RecorderNode, Lease and Node objects for the unit tests.
import type { Camera, CameraSpec, CameraStatus, RecorderNode } from '@vigil/crds';
import { toMicroTime, type NodeView, type Lease } from '@vigil/kube';

export function camera(name: string, status: CameraStatus = {}, spec: Partial<CameraSpec> = {}, generation = 1): Camera {
  return {
    apiVersion: 'vigil.io/v1alpha1',
    kind: 'Camera',
    metadata: { name, namespace: 'vigil', uid: `uid-${name}`, generation, resourceVersion: '1' },
    spec: { source: `rtsp://cams.example/${name}`, ptz: false, audio: 'auto', ...spec },
    status,
  };
}

export function recorderNode(name: string, member = true, annotations?: Record<string, string>): RecorderNode {
  return {
    apiVersion: 'vigil.io/v1alpha1',
    kind: 'RecorderNode',
    metadata: { name, uid: `uid-rn-${name}`, generation: 1, resourceVersion: '1', ...(annotations ? { annotations } : {}) },
    spec: { nodeName: name, member },
  };
}

export function lease(name: string, renewMs: number): Lease {
  return { metadata: { name, namespace: 'vigil' }, spec: { holderIdentity: name, leaseDurationSeconds: 15, renewTime: toMicroTime(renewMs) } };
}

export function node(name: string, opts: Partial<NodeView> = {}): NodeView {
  return { name, member: true, left: false, online: true, labels: {}, url: `http://vigil-recorder-${name}.vigil.svc:9997`, ...opts };
}
