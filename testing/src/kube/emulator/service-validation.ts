// Service validation as pkg/apis/core/validation ValidateService: type, ports (numbers, names, target ports), selector, affinity, cluster IPs.
import { duplicateValue, forbiddenField, invalidEach, invalidValue, requiredValue } from './field-errors.js';
import type { StatusCause } from './status-errors.js';
import type { KubeObject } from './types.js';
import { arr, child, index, oneOf, present, rec, str, validateLabels, validatePortNumOrName } from './validation-common.js';
import { isDns1123Label, isDns1123Subdomain, isIpAddress, isQualifiedName, isValidPortNum } from './validation-formats.js';

const TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

export function validateService(o: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const spec = rec(o.spec);
  const causes: StatusCause[] = [];
  const type = str(spec.type);
  const headless = spec.clusterIP === 'None';
  const ports = arr(spec.ports);
  causes.push(...oneOf(spec.type, 'spec.type', TYPES));
  if (type === 'ExternalName') {
    const externalName = str(spec.externalName);
    if (externalName === '') causes.push(requiredValue('spec.externalName'));
    else causes.push(...invalidEach('spec.externalName', externalName, isDns1123Subdomain(externalName.replace(/\.$/, ''))));
  } else if (ports.length === 0 && !headless) causes.push(requiredValue('spec.ports'));
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const port = rec(p);
    const at = index('spec.ports', i);
    const name = str(port.name);
    if (ports.length > 1 && name === '') causes.push(requiredValue(child(at, 'name')));
    else if (name !== '') {
      const msgs = isDns1123Label(name);
      causes.push(...invalidEach(child(at, 'name'), name, msgs));
      if (msgs.length === 0 && names.has(name)) causes.push(duplicateValue(child(at, 'name'), name));
      names.add(name);
    }
    causes.push(...invalidEach(child(at, 'port'), port.port ?? 0, isValidPortNum(Number(port.port ?? 0))));
    causes.push(...oneOf(port.protocol, child(at, 'protocol'), PROTOCOLS));
    if (present(port.targetPort)) causes.push(...validatePortNumOrName(port.targetPort, child(at, 'targetPort')));
    if (str(port.appProtocol) !== '') causes.push(...invalidEach(child(at, 'appProtocol'), port.appProtocol, isQualifiedName(str(port.appProtocol))));
    if (present(port.nodePort) && port.nodePort !== 0) {
      if (type === 'ClusterIP' || type === 'ExternalName') causes.push(forbiddenField(child(at, 'nodePort'), `may not be used when \`type\` is '${type}'`));
      else causes.push(...invalidEach(child(at, 'nodePort'), port.nodePort, isValidPortNum(Number(port.nodePort))));
    }
  });
  causes.push(...validateLabels(spec.selector, 'spec.selector'));
  causes.push(...oneOf(spec.sessionAffinity, 'spec.sessionAffinity', ['ClientIP', 'None']));
  const clusterIp = str(spec.clusterIP);
  if (clusterIp !== '' && clusterIp !== 'None' && !isIpAddress(clusterIp)) causes.push(invalidValue('spec.clusterIPs[0]', clusterIp, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
  if (present(spec.internalTrafficPolicy)) causes.push(...oneOf(spec.internalTrafficPolicy, 'spec.internalTrafficPolicy', ['Cluster', 'Local']));
  if (present(spec.externalTrafficPolicy)) {
    if (type !== 'NodePort' && type !== 'LoadBalancer') causes.push(invalidValue('spec.externalTrafficPolicy', spec.externalTrafficPolicy, 'may only be set for externally-accessible services'));
    else causes.push(...oneOf(spec.externalTrafficPolicy, 'spec.externalTrafficPolicy', ['Cluster', 'Local']));
  }
  if (old !== undefined) {
    const before = str(rec(old.spec).clusterIP);
    if (before !== '' && clusterIp !== before && type !== 'ExternalName' && rec(old.spec).type !== 'ExternalName') {
      causes.push(invalidValue('spec.clusterIPs[0]', clusterIp, 'may not change once set'));
    }
  }
  return causes;
}
