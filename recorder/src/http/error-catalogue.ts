// Every error code the API answers, with its HTTP status; docs/api.md lists the same table (checked by a test).
export const ERROR_CATALOGUE = {
  bad_request: { status: 400, message: 'the request is not valid' },
  https_required: { status: 400, message: 'this port speaks HTTPS only' },
  unknown_field: { status: 400, message: 'the body has a field this endpoint does not accept' },
  unauthorized: { status: 401, message: 'a bearer token is required' },
  forbidden: { status: 403, message: 'the token does not allow this' },
  not_found: { status: 404, message: 'no such resource' },
  camera_not_found: { status: 404, message: 'the camera is not known on this node' },
  not_recording: { status: 404, message: 'the camera has no segment being written' },
  payload_too_large: { status: 413, message: 'the request body is larger than 64 KiB' },
  unsupported_media_type: { status: 415, message: 'the body must be JSON' },
  request_timeout: { status: 408, message: 'the request was not received in time' },
  uri_too_long: { status: 414, message: 'the request path is too long' },
  headers_too_large: { status: 431, message: 'the request line and headers are too large' },
  internal_error: { status: 500, message: 'the server failed to answer' },
  invalid_parameter: { status: 400, message: 'a query parameter is not valid' },
  invalid_window: { status: 400, message: 'the listing window is not valid' },
  invalid_speed: { status: 400, message: 'speed must be an integer from 2 to 120' },
  unknown_peer: { status: 400, message: 'a part names a peer that is not a known cluster node' },
  job_not_found: { status: 404, message: 'no such job on this node' },
  job_failed: { status: 409, message: 'the job failed; there is nothing to download' },
  job_expired: { status: 410, message: 'the result has expired' },
  window_too_long: { status: 413, message: 'the window is longer than 4 hours' },
  range_not_satisfiable: { status: 416, message: 'the range is outside the result' },
  media_tool_missing: { status: 503, message: 'the media tool (ffmpeg) is not available on this node' },
  archive_unreadable: { status: 500, message: 'the archive on disk cannot be read' },
  archive_index_unavailable: { status: 503, message: 'the database holding the archive index cannot be read' },
  no_snapshot_uri: { status: 404, message: 'the camera has no snapshot URL' },
  camera_error: { status: 502, message: 'the camera answered with an error or with something that is not an image' },
  camera_timeout: { status: 504, message: 'the camera did not answer within 10 seconds' },
  ptz_disabled: { status: 403, message: 'PTZ is disabled for the camera' },
  ptz_no_credentials: { status: 422, message: "the camera's RTSP URL carries no username and password for ONVIF" },
  invalid_ptz_value: { status: 422, message: 'pan, tilt and zoom must be numbers from -1.0 to 1.0; speed a number' },
  ptz_failed: { status: 502, message: 'the camera or its ONVIF request failed' },
  not_clustered: { status: 404, message: 'this node does not run in a cluster (cluster.enabled is false)' },
  node_not_found: { status: 404, message: 'no such cluster node (RecorderNode)' },
  invalid_membership: { status: 400, message: 'the membership must name at least one node' },
  certificate_pending: { status: 503, message: 'this node is waiting for its certificate; its API is not served until it has one' },
  cluster_unreachable: { status: 503, message: "the cluster's state store (the Kubernetes API) cannot be reached" },
  invalid_filename: { status: 400, message: "the file name is not a segment file name of the camera" },
  segment_not_found: { status: 404, message: 'no such segment file on this node' },
  no_recordings: { status: 404, message: 'nothing is recorded on this node in the window' },
  not_fragmented: { status: 409, message: 'the window starts in a progressive MP4 segment, which play cannot cut' },
  too_many_streams: { status: 429, message: 'the node or the token already holds as many open streams of this kind as it may' },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The code of a status raised by fastify or a plugin; a 4xx without a code of its own is answered as a plain 400. */
export function codeForStatus(status: number): ErrorCode {
  if (status >= 500) return 'internal_error';
  const own: Partial<Record<number, ErrorCode>> = { 404: 'not_found', 408: 'request_timeout', 413: 'payload_too_large', 414: 'uri_too_long', 415: 'unsupported_media_type', 431: 'headers_too_large' };
  return own[status] ?? 'bad_request';
}

/** An error a route throws on purpose; the error handler answers it with the catalogue's status. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message?: string, details?: Record<string, unknown>) {
    super(message ?? ERROR_CATALOGUE[code].message);
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return ERROR_CATALOGUE[this.code].status;
  }
}

export interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

export function errorBody(code: string, message: string, details?: Record<string, unknown>): ErrorBody {
  return details === undefined ? { error: { code, message } } : { error: { code, message, details } };
}
