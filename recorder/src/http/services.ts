// What the HTTP layer needs from the recorder's services: small interfaces, implemented below http/.
import type { OpenSegmentInfo } from '../recording/closed-segment.js';

export interface CameraControl {
  /** undefined when the node does not know the camera. */
  state(cameraId: string): 'recording' | 'stalled' | 'stopped' | undefined;
  /** The file being written, only when the camera records in fmp4 (an mp4 file is unreadable until it closes). */
  currentSegment(cameraId: string): OpenSegmentInfo | undefined;
  /** `*` means every camera; throws CameraNotFoundError for an unknown id. */
  startByRequest(id: string): number;
  stopByRequest(id: string): Promise<number>;
}
