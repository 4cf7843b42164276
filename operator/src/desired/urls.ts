// A recorder's internal URL (its per-node Service) and public URL (its Ingress host), as the Pod's environment gives them.
import type { Settings } from '../config/settings.js';
import { nodeHostLabel, recorderName } from './names.js';

/** https:// when the recorders serve TLS (settings tls): a cluster's API is never plain by default. */
export function advertiseUrl(nodeName: string, namespace: string, settings: Settings): string {
  return `${settings.tls === undefined ? 'http' : 'https'}://${recorderName(nodeName)}.${namespace}.svc:${settings.recorder.ports.api}`;
}

/** The node's Ingress host, when a per-node host template is configured. */
export function publicHost(nodeName: string, settings: Settings): string | undefined {
  return settings.ingress ? settings.ingress.hostTemplate.replaceAll('{node}', nodeHostLabel(nodeName)) : undefined;
}

export function publicUrl(nodeName: string, settings: Settings): string | undefined {
  const host = publicHost(nodeName, settings);
  return host ? `https://${host}` : undefined;
}
