// The failure every camera-addressed operation shares: the node does not know the camera.

export class CameraNotFoundError extends Error {
  constructor(readonly cameraId: string) {
    super(`camera ${cameraId} is not known on this node`);
    this.name = 'CameraNotFoundError';
  }
}
