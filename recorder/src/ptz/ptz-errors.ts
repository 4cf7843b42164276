// Typed failures of a PTZ command; the HTTP layer maps each to a status and error code.

export class PtzDisabledError extends Error {
  constructor(readonly cameraId: string) {
    super(`PTZ is disabled for camera ${cameraId} (ptz: false)`);
    this.name = 'PtzDisabledError';
  }
}

export class PtzNoCredentialsError extends Error {
  constructor(readonly cameraId: string) {
    super(`camera ${cameraId}: its RTSP URL carries no username and password, which ONVIF needs`);
    this.name = 'PtzNoCredentialsError';
  }
}

/** The device could not be reached or refused the command; the message carries the camera's reason, never credentials. */
export class PtzCommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PtzCommandError';
  }
}
