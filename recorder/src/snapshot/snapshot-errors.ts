// Typed failures of a snapshot request; the HTTP layer maps each to a status and error code.

export class NoSnapshotUriError extends Error {
  constructor(readonly cameraId: string) {
    super(`camera ${cameraId} has no snapshot URL (snapuri)`);
    this.name = 'NoSnapshotUriError';
  }
}

/** The camera answered, but not with a usable image: an error status, refused credentials, not an image, too large, or the connection failed. Messages carry no credentials. */
export class CameraAnswerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CameraAnswerError';
  }
}

/** The camera did not deliver a whole answer within the time limit. */
export class CameraTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CameraTimeoutError';
  }
}
