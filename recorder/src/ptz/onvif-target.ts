// Where and as whom to reach a camera's ONVIF device service: the `onvif` key, else the RTSP host on port 80.
import type { Camera } from '../cameras/camera.js';
import { urlCredentials } from '../util/redact.js';
import { PtzNoCredentialsError } from './ptz-errors.js';

export const DEFAULT_DEVICE_PATH = '/onvif/device_service';

export interface OnvifTarget {
  hostname: string;
  port: number;
  path: string;
  useSecure: boolean;
  username: string;
  password: string;
  /** host:port/path, for messages (no credentials). */
  address: string;
}

/** Throws PtzNoCredentialsError when the stream URL lacks a username or a password. */
export function onvifTarget(camera: Camera): OnvifTarget {
  const creds = urlCredentials(camera.source);
  if (creds === undefined || creds.username === '' || creds.password === '') throw new PtzNoCredentialsError(camera.id);
  const device = camera.onvif === undefined ? fromStream(camera.source) : new URL(camera.onvif);
  const useSecure = device.protocol === 'https:';
  const port = device.port === '' ? (useSecure ? 443 : 80) : Number(device.port);
  const hostname = device.hostname.replace(/^\[(.*)\]$/, '$1');
  const path = camera.onvif === undefined || device.pathname === '/' ? DEFAULT_DEVICE_PATH : device.pathname;
  return { hostname, port, path, useSecure, username: creds.username, password: creds.password, address: `${device.hostname}:${port}${path}` };
}

function fromStream(source: string): URL {
  const stream = new URL(source);
  return new URL(`http://${stream.hostname}/`);
}
