// Names and labels of the objects the operator makes for a node: `vigil-recorder-<node>`, shortened with a hash when
// the node name is too long or not a valid DNS label (Services need DNS-1035 labels: no dots, at most 63 characters).
import { Labels, nodeHostLabel, recorderName, shortHash } from '@vigil/crds';

// One home for the per-node names (@vigil/crds), which the recorders need too (a peer's certificate names its Service).
export { nodeHostLabel, recorderName, shortHash };

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
