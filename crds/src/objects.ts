// The whole Camera and RecorderNode objects as they travel over the API (JSON: times are RFC 3339 strings), and the
// two questions every part asks of them: which Node a RecorderNode stands for, and which nodes record a Camera.
import type { CameraSpec, CameraStatus } from './camera.js';
import type { RecorderNodeSpec, RecorderNodeStatus } from './recorder-node.js';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** The part of metav1.ObjectMeta Vigil reads or writes. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
}

export interface Camera {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec: CameraSpec;
  status?: CameraStatus;
}

export interface RecorderNode {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec: RecorderNodeSpec;
  status?: RecorderNodeStatus;
}

/** The Kubernetes Node a RecorderNode stands for: spec.nodeName, else its own name (they are equal when the operator made it). */
export function nodeNameOf(rn: Pick<RecorderNode, 'metadata' | 'spec'>): string {
  return rn.spec.nodeName || rn.metadata.name || '';
}

/** Whether `node` records the camera: it is assigned to it, or it is the old side of a planned move (handoverFrom). */
export function recordsCamera(camera: Pick<Camera, 'status'>, node: string): boolean {
  return camera.status?.node === node || (camera.status?.handoverFrom ?? undefined) === node;
}
