// PTZ commands for a camera: checks the prerequisites, scales velocities by speed, runs them on the pooled ONVIF device.
import type { Logger } from 'pino';
import type { Camera } from '../cameras/camera.js';
import { redactText } from '../util/redact.js';
import { OnvifDevicePool, type ConnectDevice } from './device-pool.js';
import { OnvifDevice, type PtzDevice, type Velocity } from './onvif-device.js';
import { onvifTarget, type OnvifTarget } from './onvif-target.js';
import { CameraNotFoundError } from '../cameras/camera-errors.js';
import { PtzCommandError, PtzDisabledError } from './ptz-errors.js';

/** Each ONVIF request; a whole command (connect included) gets twice that before it counts as failed. */
export const ONVIF_REQUEST_TIMEOUT_MS = 5_000;

export interface CameraLookup {
  get(id: string): Camera | undefined;
}

export interface PtzMove {
  cameraId: string;
  /** -1.0 … 1.0 each; validated by the caller. */
  pan: number;
  tilt: number;
  zoom: number;
  /** Clamped to 0.0 … 1.0; 1.0 when absent. */
  speed?: number | undefined;
}

export interface PtzServiceOptions {
  cameras: CameraLookup;
  log: Logger;
  requestTimeoutMs?: number;
  /** How to reach a device; the real ONVIF client unless a test says otherwise. */
  connect?: ConnectDevice;
}

export function clampSpeed(speed: number | undefined): number {
  if (speed === undefined) return 1;
  return Math.min(1, Math.max(0, speed));
}

export class PtzService {
  readonly #cameras: CameraLookup;
  readonly #log: Logger;
  readonly #pool: OnvifDevicePool;
  readonly #deadlineMs: number;

  constructor(opts: PtzServiceOptions) {
    const requestTimeoutMs = opts.requestTimeoutMs ?? ONVIF_REQUEST_TIMEOUT_MS;
    this.#cameras = opts.cameras;
    this.#log = opts.log.child({ component: 'ptz' });
    this.#pool = new OnvifDevicePool(opts.connect ?? ((target) => OnvifDevice.connect(target, requestTimeoutMs)));
    this.#deadlineMs = 2 * requestTimeoutMs;
  }

  /** ContinuousMove with pan/tilt/zoom scaled by speed. Throws the errors of ptz-errors.ts. */
  async move(m: PtzMove): Promise<void> {
    const speed = clampSpeed(m.speed);
    const v: Velocity = { pan: m.pan * speed, tilt: m.tilt * speed, zoom: m.zoom * speed };
    await this.#run(m.cameraId, 'ContinuousMove', (device) => device.continuousMove(v));
    this.#log.info({ camera: m.cameraId, velocity: v }, 'ptz move');
  }

  async stop(cameraId: string): Promise<void> {
    await this.#run(cameraId, 'Stop', (device) => device.stop());
    this.#log.info({ camera: cameraId }, 'ptz stop');
  }

  async #run(cameraId: string, what: string, command: (device: PtzDevice) => Promise<void>): Promise<void> {
    const camera = this.#cameras.get(cameraId);
    if (camera === undefined) throw new CameraNotFoundError(cameraId);
    if (!camera.ptz) throw new PtzDisabledError(cameraId);
    const target = onvifTarget(camera);
    try {
      await withDeadline(this.#pool.run(cameraId, target, command), this.#deadlineMs, () => this.#pool.forget(cameraId));
    } catch (err) {
      const message = describe(cameraId, what, target, err);
      this.#log.warn({ camera: cameraId, err: message }, 'ptz command failed');
      throw new PtzCommandError(message);
    }
  }
}

function describe(cameraId: string, what: string, target: OnvifTarget, err: unknown): string {
  const reason = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown } | null)?.code;
  const text = `camera ${cameraId}: ONVIF ${what} at ${target.address} failed: ${typeof code === 'string' && !reason.includes(code) ? `${code} ` : ''}${reason}`;
  return redactText(text, [target.password]);
}

function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new Error(`no answer within ${ms / 1000} s`));
    }, ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
