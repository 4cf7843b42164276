// A Pod's volumes as local folders: ConfigMap, Secret, downward API and projected volumes (with the ServiceAccount token
// from the TokenRequest API) written as files, emptyDir as a folder of the Pod, hostPath as a folder of the node that
// outlives the Pod. Written again at every container start, as the kubelet keeps them in sync.
import { chmod, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { V1Container, V1KeyToPath, V1Pod, V1Volume } from '@kubernetes/client-node';
import { fieldRefValue, NotReadyYet } from './pod-env.js';
import type { PodSources } from './pod-sources.js';

/** Where a process would find its in-cluster credentials inside a container. */
export const SERVICE_ACCOUNT_MOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface VolumeContext {
  pod: V1Pod;
  /** The Pod's folder (emptyDirs, ConfigMaps, Secrets). */
  podDir: string;
  /** The node's folder: hostPath /x/y is <nodeDir>/host/x/y. */
  nodeDir: string;
  sources: PodSources;
  /** The Pod's ServiceAccount token (one per Pod, kept by the caller). */
  token(o: { audience?: string; expirationSeconds?: number }): Promise<string>;
}

/** A node's folder for a hostPath. */
export function hostPathDir(nodeDir: string, path: string): string {
  return join(nodeDir, 'host', path);
}

async function writeFiles(dir: string, files: Record<string, string>, items: V1KeyToPath[] | undefined, defaultMode: number | undefined, what: string, optional: boolean): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  for (const item of items ?? Object.keys(files).map((key): V1KeyToPath => ({ key, path: key }))) {
    const text = files[item.key];
    if (text === undefined) {
      if (optional) continue;
      throw new NotReadyYet('ContainerCreating', `MountVolume.SetUp failed: ${what} has no key "${item.key}"`);
    }
    const file = join(dir, item.path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);
    await chmod(file, item.mode ?? defaultMode ?? 0o644);
  }
}

async function required(data: Record<string, string> | undefined, optional: boolean | undefined, what: string): Promise<Record<string, string>> {
  if (data !== undefined) return data;
  if (optional === true) return {};
  throw new NotReadyYet('ContainerCreating', `MountVolume.SetUp failed: ${what} not found`);
}

async function hostPath(ctx: VolumeContext, volume: V1Volume): Promise<string> {
  const path = volume.hostPath?.path ?? '';
  const local = hostPathDir(ctx.nodeDir, path);
  const type = volume.hostPath?.type ?? '';
  if (type === 'DirectoryOrCreate' || type === '') await mkdir(local, { recursive: true });
  else if (type === 'Directory' && !(await stat(local).then((s) => s.isDirectory(), () => false))) {
    throw new NotReadyYet('ContainerCreating', `MountVolume.SetUp failed for volume "${volume.name}": hostPath type check failed: ${path} is not a directory`);
  }
  return local;
}

async function projected(ctx: VolumeContext, volume: V1Volume, local: string): Promise<void> {
  const namespace = ctx.pod.metadata?.namespace ?? '';
  await rm(local, { recursive: true, force: true });
  await mkdir(local, { recursive: true });
  const mode = volume.projected?.defaultMode;
  for (const source of volume.projected?.sources ?? []) {
    const files: Record<string, string> = {};
    let items: V1KeyToPath[] | undefined;
    if (source.serviceAccountToken !== undefined) {
      const t = source.serviceAccountToken;
      files[t.path] = await ctx.token({ ...(t.audience === undefined ? {} : { audience: t.audience }), ...(t.expirationSeconds === undefined ? {} : { expirationSeconds: t.expirationSeconds }) });
    } else if (source.configMap !== undefined) {
      Object.assign(files, await required(await ctx.sources.configMap(namespace, source.configMap.name ?? ''), source.configMap.optional, `configmap "${source.configMap.name}"`));
      items = source.configMap.items;
    } else if (source.secret !== undefined) {
      Object.assign(files, await required(await ctx.sources.secret(namespace, source.secret.name ?? ''), source.secret.optional, `secret "${source.secret.name}"`));
      items = source.secret.items;
    } else if (source.downwardAPI !== undefined) {
      for (const item of source.downwardAPI.items ?? []) if (item.fieldRef !== undefined) files[item.path] = fieldRefValue(ctx.pod, item.fieldRef.fieldPath);
    }
    for (const item of items ?? Object.keys(files).map((key): V1KeyToPath => ({ key, path: key }))) {
      if (files[item.key] === undefined) continue;
      const file = join(local, item.path);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, files[item.key] as string);
      await chmod(file, item.mode ?? mode ?? 0o644);
    }
  }
}

/** Makes every volume of the Pod; volume name → local path. Throws NotReadyYet while a source is missing. */
export async function materializeVolumes(ctx: VolumeContext): Promise<Map<string, string>> {
  const namespace = ctx.pod.metadata?.namespace ?? '';
  const out = new Map<string, string>();
  for (const volume of ctx.pod.spec?.volumes ?? []) {
    const local = join(ctx.podDir, 'volumes', volume.name);
    if (volume.hostPath !== undefined) {
      out.set(volume.name, await hostPath(ctx, volume));
      continue;
    }
    if (volume.configMap !== undefined) {
      const what = `configmap "${volume.configMap.name}"`;
      await writeFiles(local, await required(await ctx.sources.configMap(namespace, volume.configMap.name ?? ''), volume.configMap.optional, what), volume.configMap.items, volume.configMap.defaultMode, what, volume.configMap.optional === true);
    } else if (volume.secret !== undefined) {
      const what = `secret "${volume.secret.secretName}"`;
      await writeFiles(local, await required(await ctx.sources.secret(namespace, volume.secret.secretName ?? ''), volume.secret.optional, what), volume.secret.items, volume.secret.defaultMode, what, volume.secret.optional === true);
    } else if (volume.projected !== undefined) {
      await projected(ctx, volume, local);
    } else if (volume.downwardAPI !== undefined) {
      const files = Object.fromEntries((volume.downwardAPI.items ?? []).filter((i) => i.fieldRef !== undefined).map((i) => [i.path, fieldRefValue(ctx.pod, i.fieldRef?.fieldPath ?? '')]));
      await writeFiles(local, files, undefined, volume.downwardAPI.defaultMode, 'downwardAPI', true);
    } else {
      // emptyDir, and every kind this kubelet has no source for: an empty folder that lives as long as the Pod.
      await mkdir(local, { recursive: true });
    }
    out.set(volume.name, local);
  }
  return out;
}

/** The container's mounts (mount path → local path, subPath applied), the most specific mount point first. */
export function containerMounts(container: V1Container, volumes: ReadonlyMap<string, string>): Array<readonly [string, string]> {
  const mounts: Array<readonly [string, string]> = [];
  for (const mount of container.volumeMounts ?? []) {
    const local = volumes.get(mount.name);
    if (local === undefined) continue;
    mounts.push([mount.mountPath.replace(/\/+$/, ''), mount.subPath === undefined || mount.subPath === '' ? local : join(local, mount.subPath)]);
  }
  return mounts.sort((a, b) => b[0].length - a[0].length);
}
