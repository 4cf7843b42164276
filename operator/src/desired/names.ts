// Names and labels of the objects the operator makes for a node: `vigil-recorder-<node>`, shortened with a hash when
// the node name is too long or not a valid DNS label (Services need DNS-1035 labels: no dots, at most 63 characters).
import { createHash } from 'node:crypto';
import { Labels } from '@vigil/crds';

const PREFIX = 'vigil-recorder-';
const MAX_LABEL = 63;

export function shortHash(text: string, length = 8): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/** The Pod, Service and Ingress name of a node's recorder. */
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

export const RECORDER_LABEL = 'vigil.io/recorder';
/** On each per-node object: the node it was made for (an annotation: node names may be longer than a label value). */
export const NODE_ANNOTATION = 'vigil.io/node';
export const MANAGED_BY = 'vigil-operator';

/** Labels of every object the operator makes for a node's recorder; RECORDER_LABEL is the Service's selector. */
export function recorderLabels(nodeName: string): Record<string, string> {
  return {
    [Labels.name]: 'vigil',
    [Labels.component]: 'recorder',
    [Labels.managedBy]: MANAGED_BY,
    [RECORDER_LABEL]: recorderName(nodeName),
  };
}
