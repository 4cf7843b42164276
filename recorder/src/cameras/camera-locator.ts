// Where a camera lives, asked once per request by http/: recorded here, recorded by another node, or unknown.
import type { Camera } from './camera.js';

export type CameraLocation =
  | { kind: 'local' }
  /** Another node records it: its base URL inside the cluster, and through the Ingress when it has one. */
  | { kind: 'remote'; node: string; url: string; publicUrl: string | undefined }
  | { kind: 'unknown' };

/** A camera another node records, as /api/cameras lists it. */
export interface RemoteCamera {
  id: string;
  node: string;
  url: string;
  publicUrl: string | undefined;
  /** The owner reports it recording. */
  recording: boolean;
  ptz: boolean;
}

export interface CameraLocator {
  /** Asked once per request; in a cluster, a camera this node does not record may be looked up in the API. */
  locate(cameraId: string): Promise<CameraLocation>;
  /** Cameras recorded by other nodes (only cluster mode has any). */
  remoteCameras(): Promise<RemoteCamera[]>;
  /** This node's name, which /api/cameras gives for the cameras recorded here. */
  readonly nodeName: string;
}

/** Standalone and database modes: a camera is here when this node's registry knows it; no other node exists. */
export function localCameraLocator(cameras: { get(id: string): Camera | undefined }, nodeName: string): CameraLocator {
  return {
    locate: async (id) => (cameras.get(id) === undefined ? { kind: 'unknown' } : { kind: 'local' }),
    remoteCameras: async () => [],
    nodeName,
  };
}
