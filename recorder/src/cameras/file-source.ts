// The configuration file as a camera source: its `cameras` list, with global record settings applied.
import type { VigilConfig } from '../config/schema.js';
import { cameraFromConfig, type Camera } from './camera.js';
import type { CameraSourceName } from './registry.js';

export const FILE_SOURCE = 'file' satisfies CameraSourceName;

export function camerasFromConfig(config: VigilConfig): Camera[] {
  return config.cameras.map((entry) => cameraFromConfig(entry, config, FILE_SOURCE));
}
