// RecorderNode + settings → the node's own Service (the target of 307s inside the cluster) and, with a host
// template, its Ingress rule (one host per node).
import { nodeNameOf, type OwnerReference, type RecorderNode } from '@vigil/crds';
import type { Settings } from '../config/settings.js';
import type { Ingress, Service } from '@vigil/kube';
import { NODE_ANNOTATION, RECORDER_LABEL, recorderLabels, recorderName } from './names.js';
import { publicHost } from './urls.js';

export function desiredService(rn: RecorderNode, settings: Settings, namespace: string, owner: OwnerReference): Service {
  const nodeName = nodeNameOf(rn);
  const name = recorderName(nodeName);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, labels: recorderLabels(nodeName), annotations: { [NODE_ANNOTATION]: nodeName }, ownerReferences: [owner] },
    spec: {
      type: 'ClusterIP',
      selector: { [RECORDER_LABEL]: name },
      ports: [
        { name: 'api', port: settings.recorder.ports.api, targetPort: 'api', protocol: 'TCP' },
        { name: 'metrics', port: settings.recorder.ports.metrics, targetPort: 'metrics', protocol: 'TCP' },
      ],
    },
  };
}

/** The node's Ingress, or undefined when no per-node host template is configured. */
export function desiredIngress(rn: RecorderNode, settings: Settings, namespace: string, owner: OwnerReference): Ingress | undefined {
  const host = publicHost(nodeNameOf(rn), settings);
  if (!settings.ingress || !host) return undefined;
  const nodeName = nodeNameOf(rn);
  const name = recorderName(nodeName);
  const spec: NonNullable<Ingress['spec']> = {
    rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name, port: { name: 'api' } } } }] } }],
  };
  if (settings.ingress.className) spec.ingressClassName = settings.ingress.className;
  if (settings.ingress.tlsSecretName) spec.tls = [{ hosts: [host], secretName: settings.ingress.tlsSecretName }];
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    // The settings' annotations first (e.g. ingress-nginx's backend-protocol HTTPS when the recorders serve TLS).
    metadata: { name, namespace, labels: recorderLabels(nodeName), annotations: { ...settings.ingress.annotations, [NODE_ANNOTATION]: nodeName }, ownerReferences: [owner] },
    spec,
  };
}
