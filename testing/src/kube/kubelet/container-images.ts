// What the process kubelet runs for a container image: there is no container runtime, so a test maps each image it
// needs to a local command (its entrypoint), and may adapt what the container is given (its configuration's paths, its
// ports) before the start. An image the kubelet was not told about runs as a placeholder, as the pause container does.
import type { V1Container } from '@kubernetes/client-node';

/** A container as the kubelet prepared it on this machine: every container path it was given already made local. */
export interface LocalContainer {
  readonly namespace: string;
  readonly podName: string;
  readonly podUid: string;
  readonly nodeName: string;
  readonly spec: V1Container;
  /** The container's command (spec.command), paths of its mounts made local; undefined: the image's entrypoint. */
  readonly command: string[] | undefined;
  /** spec.args, paths of its mounts made local. */
  readonly args: string[];
  /** The resolved environment (value, fieldRef, secretKeyRef, configMapKeyRef, KUBERNETES_SERVICE_*, KUBECONFIG). */
  readonly env: Record<string, string>;
  /** Mount path → local folder or file, the most specific mount point first. */
  readonly mounts: ReadonlyArray<readonly [string, string]>;
  /** containerPort → the loopback port the container listens on here (Pods share one network namespace). */
  readonly ports: ReadonlyMap<number, number>;
  /** A folder of this container's own (kept across its restarts), for files an image adapter writes. */
  readonly dir: string;
  readonly restartCount: number;
}

/** What to spawn. */
export interface LocalCommand {
  command: string[];
  env: Record<string, string>;
}

/** How to run one image: its entrypoint (Docker's ENTRYPOINT) and an optional adaptation of the container. */
export interface ContainerImage {
  /** The command that spec.command replaces and spec.args follow. */
  entrypoint: string[];
  /** Adapts the prepared container (e.g. rewrites its configuration for loopback); default: entrypoint + args as given. */
  prepare?(container: LocalContainer): Promise<LocalCommand> | LocalCommand;
}

export type ContainerImages = Readonly<Record<string, ContainerImage>>;

/** A placeholder for an image nobody mapped: runs until stopped, as a pause container does; an init container succeeds at once. */
export function placeholderCommand(init: boolean): string[] {
  return init ? ['true'] : ['sleep', 'infinity'];
}

/** The command line of a container: spec.command replaces the image's entrypoint, spec.args follow (as Docker does). */
export async function localCommand(image: ContainerImage, container: LocalContainer): Promise<LocalCommand> {
  if (image.prepare !== undefined) return image.prepare(container);
  return { command: [...(container.command ?? image.entrypoint), ...container.args], env: container.env };
}

const PATH_END = /^($|[/\s'"`;&|)=:,])/;

/**
 * Replaces container paths (mount points) by their local folders: a string that is a mount path or below one, and in a
 * longer string (a shell command line) every occurrence that starts a word. Objects and arrays are rewritten deeply
 * (a parsed configuration file).
 */
export function rewriteContainerPaths(value: unknown, mounts: ReadonlyArray<readonly [string, string]>): unknown {
  if (typeof value === 'string') return rewriteString(value, mounts);
  if (Array.isArray(value)) return value.map((v) => rewriteContainerPaths(v, mounts));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewriteContainerPaths(v, mounts)]));
  return value;
}

function rewriteString(text: string, mounts: ReadonlyArray<readonly [string, string]>): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const wordStart = i === 0 || /[\s'"`=:;&|(,]/.test(text[i - 1] as string);
    const hit = wordStart ? mounts.find(([mountPath]) => text.startsWith(mountPath, i) && PATH_END.test(text.slice(i + mountPath.length))) : undefined;
    if (hit !== undefined) {
      out += hit[1];
      i += hit[0].length;
    } else {
      out += text[i];
      i++;
    }
  }
  return out;
}
