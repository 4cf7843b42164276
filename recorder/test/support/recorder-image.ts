// The recorder's container image for the process kubelet: this checkout's vigil-recorder, adapted to loopback by
// @vigil/testing/kube/images/vigil-image (configuration paths, ports, the advertised address).
import type { ContainerImage } from '@vigil/testing/kube/kubelet/container-images';
import { vigilImage } from '@vigil/testing/kube/images/vigil-image';

/** The image; `extraConfig` is merged over the ConfigMap's configuration (test-sized settings). */
export function recorderImage(extraConfig: Record<string, unknown> = {}): ContainerImage {
  return vigilImage({ extraRecorderConfig: extraConfig });
}
