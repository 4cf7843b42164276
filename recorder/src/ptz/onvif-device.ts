// One connected ONVIF device (the `onvif` package's Cam): connect sequence, ContinuousMove and Stop as promises.
import type onvif from 'onvif';
import type { OnvifTarget } from './onvif-target.js';

export interface Velocity {
  pan: number;
  tilt: number;
  zoom: number;
}

/** What the PTZ service needs from a device; tests and the pool depend on this, not on Cam. */
export interface PtzDevice {
  continuousMove(v: Velocity): Promise<void>;
  stop(): Promise<void>;
}

type Done = (err: Error | null) => void;

function call(run: (done: Done) => void): Promise<void> {
  return new Promise((resolve, reject) => run((err) => (err ? reject(err) : resolve())));
}

export class OnvifDevice implements PtzDevice {
  readonly #cam: InstanceType<typeof onvif.Cam>;
  readonly #profileToken: string;

  private constructor(cam: InstanceType<typeof onvif.Cam>, profileToken: string) {
    this.#cam = cam;
    this.#profileToken = profileToken;
  }

  /**
   * The device clock (for WS-Security timestamps), its service addresses (GetServices, else GetCapabilities),
   * then its media profiles. The package's own connect() also resolves video sources and can throw from a
   * callback on unusual profiles; PTZ needs only a profile token.
   */
  static async connect(target: OnvifTarget, requestTimeoutMs: number): Promise<OnvifDevice> {
    // Loaded at the first PTZ command: the ONVIF client stays out of the memory of a recorder that never moves a camera.
    const { default: onvifPackage } = await import('onvif');
    const cam = new onvifPackage.Cam({
      hostname: target.hostname,
      port: target.port,
      path: target.path,
      useSecure: target.useSecure,
      username: target.username,
      password: target.password,
      timeout: requestTimeoutMs,
      autoconnect: false,
      // Service addresses the device reports may name an address we cannot reach (NAT, another interface).
      preserveAddress: true,
    });
    await call((done) => cam.getSystemDateAndTime((err) => done(err)));
    await call((done) => cam.getServices(true, (err) => (err ? cam.getCapabilities((err2) => done(err2)) : done(null))));
    if (cam.uri?.ptz === undefined && cam.uri?.PTZ === undefined) throw new Error('the device offers no PTZ service');
    if (cam.uri.media === undefined && cam.uri.media2 === undefined) throw new Error('the device offers no media service (needed for a profile token)');
    await call((done) => cam.getProfiles((err) => done(err)));
    const profiles = cam.profiles ?? [];
    const chosen = profiles.find((p) => p['PTZConfiguration'] !== undefined) ?? profiles[0];
    const token: unknown = chosen?.['$']?.token ?? chosen?.token;
    if (typeof token !== 'string' || token === '') throw new Error('the device has no media profile');
    return new OnvifDevice(cam, token);
  }

  continuousMove(v: Velocity): Promise<void> {
    return call((done) => this.#cam.continuousMove({ profileToken: this.#profileToken, x: v.pan, y: v.tilt, zoom: v.zoom }, (err) => done(err)));
  }

  stop(): Promise<void> {
    return call((done) => this.#cam.stop({ profileToken: this.#profileToken, panTilt: true, zoom: true }, (err) => done(err)));
  }
}
