// Names of the objects of a node's recorder, shared by the operator (which makes them) and the recorders (which check
// a peer's certificate against its Service name): `vigil-recorder-<node>`, shortened with a hash when the node name is
// too long or not a DNS label (Services need DNS-1035 labels: no dots, at most 63 characters).
import { createHash } from 'node:crypto';

const PREFIX = 'vigil-recorder-';
const MAX_LABEL = 63;

export function shortHash(text: string, length = 8): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/** The Pod, Service, ServiceAccount and Ingress name of a node's recorder. */
export function recorderName(nodeName: string): string {
  const plain = `${PREFIX}${nodeName}`;
  if (plain.length <= MAX_LABEL && /^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(plain)) return plain;
  const cleaned = `${PREFIX}${nodeName.toLowerCase().replace(/[^a-z0-9-]+/g, '-')}`.slice(0, MAX_LABEL - 9).replace(/-+$/, '');
  return `${cleaned}-${shortHash(nodeName)}`;
}

/** A host-name label for the node (the Ingress host template's `{node}`): dots and other characters become '-'. */
export function nodeHostLabel(nodeName: string): string {
  const cleaned = nodeName.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '');
  if (cleaned.length > 0 && cleaned.length <= MAX_LABEL && cleaned === nodeName) return cleaned;
  return `${cleaned.slice(0, MAX_LABEL - 9).replace(/-+$/, '')}-${shortHash(nodeName)}`;
}

/** The in-cluster host name of a node's recorder Service: what its certificate names and its peers check. */
export function recorderServiceHost(nodeName: string, namespace: string): string {
  return `${recorderName(nodeName)}.${namespace}.svc`;
}
