// Keeps one connected ONVIF device per camera; a device that fails a command is dropped and reconnected once.
import type { PtzDevice } from './onvif-device.js';
import type { OnvifTarget } from './onvif-target.js';

export type ConnectDevice = (target: OnvifTarget) => Promise<PtzDevice>;

interface Slot {
  /** The address and credentials the device was connected with; a config change connects anew. */
  key: string;
  device: Promise<PtzDevice>;
}

export class OnvifDevicePool {
  readonly #connect: ConnectDevice;
  readonly #slots = new Map<string, Slot>();

  constructor(connect: ConnectDevice) {
    this.#connect = connect;
  }

  /**
   * Runs `command` on the camera's device, connecting first when needed. Concurrent commands share one connect.
   * When a device kept from earlier fails, it may have rebooted or forgotten us: reconnect and try once more.
   */
  async run<T>(cameraId: string, target: OnvifTarget, command: (device: PtzDevice) => Promise<T>): Promise<T> {
    const key = `${target.useSecure ? 'https' : 'http'}://${target.hostname}:${target.port}${target.path}\n${target.username}\n${target.password}`;
    const existing = this.#slots.get(cameraId);
    const reused = existing !== undefined && existing.key === key;
    const slot = reused ? existing : this.#open(cameraId, key, target);
    try {
      return await command(await slot.device);
    } catch (err) {
      this.#drop(cameraId, slot);
      if (!reused) throw err;
      const fresh = this.#open(cameraId, key, target);
      try {
        return await command(await fresh.device);
      } catch (err2) {
        this.#drop(cameraId, fresh);
        throw err2;
      }
    }
  }

  /** Forgets a camera's device (camera removed or changed). */
  forget(cameraId: string): void {
    this.#slots.delete(cameraId);
  }

  #open(cameraId: string, key: string, target: OnvifTarget): Slot {
    const slot: Slot = { key, device: this.#connect(target) };
    // A failed connect is reported by the caller's await; this only keeps it from counting as unhandled.
    slot.device.catch(() => this.#drop(cameraId, slot));
    this.#slots.set(cameraId, slot);
    return slot;
  }

  #drop(cameraId: string, slot: Slot): void {
    if (this.#slots.get(cameraId) === slot) this.#slots.delete(cameraId);
  }
}
