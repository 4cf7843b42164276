// The RTSP client's error classes: callers tell auth, status, protocol, timeout and close failures apart by class.

/** Base class of every error the RTSP client raises. Messages never carry credentials (URLs are redacted). */
export class RtspError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The camera wants credentials the URL does not carry, refused the ones it does, or asks for a scheme we lack. */
export class RtspAuthError extends RtspError {}

/** The camera answered a request with a non-success status the client cannot work with. */
export class RtspStatusError extends RtspError {
  constructor(
    readonly method: string,
    readonly status: number,
    readonly reason: string,
    /** The request URI, already redacted. */
    readonly uri: string,
  ) {
    super(`${method} ${uri} failed: ${status} ${reason}`);
  }
}

/** The byte stream or a message broke the protocol (unparseable frame, oversized header, bad transport...). */
export class RtspProtocolError extends RtspError {}

/** Connecting, a request, or the keep-alive took longer than allowed. */
export class RtspTimeoutError extends RtspError {}

/** The connection ended while the client still needed it (the camera closed it, or a socket error). */
export class RtspClosedError extends RtspError {}
