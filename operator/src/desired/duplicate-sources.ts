// Cameras that record the same stream: the source URL compared without its credentials, with the scheme and host in
// lower case and the default RTSP port made explicit (rtsp://cam/x and rtsp://admin:pw@CAM:554/x are one source).
import type { Camera } from '@vigil/crds';

const DEFAULT_PORTS: Record<string, string> = { 'rtsp:': '554', 'rtsps:': '322' };

/** The stream a source URL names; the URL itself when it cannot be parsed. */
export function sourceIdentity(source: string): string {
  try {
    const url = new URL(source);
    const port = url.port || DEFAULT_PORTS[url.protocol] || '';
    return `${url.protocol}//${url.hostname.toLowerCase()}:${port}${url.pathname}${url.search}`;
  } catch {
    return source;
  }
}

/** For every Camera sharing its source with others: the names of the others (sorted). */
export function duplicateSources(cameras: Camera[]): Map<string, string[]> {
  const bySource = new Map<string, string[]>();
  for (const cam of cameras) {
    if (cam.metadata.deletionTimestamp) continue;
    const key = sourceIdentity(cam.spec.source);
    bySource.set(key, [...(bySource.get(key) ?? []), cam.metadata.name ?? '']);
  }
  const out = new Map<string, string[]>();
  for (const names of bySource.values()) {
    if (names.length < 2) continue;
    for (const name of names) out.set(name, names.filter((n) => n !== name).sort());
  }
  return out;
}
