// Event validation as pkg/apis/core/validation/events.go: the namespace rule every Event obeys, and the stricter rules of events.k8s.io/v1 writes.
import { invalidEach, invalidValue, requiredValue } from './field-errors.js';
import type { StatusCause } from './status-errors.js';
import { isRecord, type KubeObject } from './types.js';
import { isDns1123Subdomain, isQualifiedName } from './validation-formats.js';

const LIMIT = { reportingInstance: 128, action: 128, reason: 128, message: 1024 };

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function set(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '';
}

/**
 * The rules every core/v1 Event meets (legacyValidateEvent). Without eventTime: an involved object without a
 * namespace needs the Event in `default` (or no namespace), a namespaced one the same namespace. With eventTime (the
 * newer form): an involved object without a namespace needs `default` or `kube-system`, and the reporting fields are
 * required.
 */
export function validateCoreEvent(event: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const involved = isRecord(event.involvedObject) ? event.involvedObject : {};
  const involvedNamespace = str(involved.namespace);
  const namespace = event.metadata.namespace ?? '';
  const mismatch = (): void => { causes.push(invalidValue('involvedObject.namespace', involvedNamespace, 'does not match event.namespace')); };
  if (!set(event.eventTime)) {
    if (involvedNamespace === '') {
      if (namespace !== '' && namespace !== 'default') mismatch();
    } else if (namespace !== involvedNamespace) mismatch();
  } else {
    if (involvedNamespace === '' && namespace !== 'default' && namespace !== 'kube-system') mismatch();
    const controller = str(event.reportingComponent);
    if (controller === '') causes.push(requiredValue('reportingController'));
    causes.push(...invalidEach('reportingController', controller, isQualifiedName(controller)));
    const lengthRule = (field: 'reportingInstance' | 'action' | 'reason', value: string, required: boolean): void => {
      if (required && value === '') causes.push(requiredValue(field));
      if (value.length > LIMIT[field]) causes.push(invalidValue(field, '', `can have at most ${LIMIT[field]} characters`));
    };
    lengthRule('reportingInstance', str(event.reportingInstance), true);
    lengthRule('action', str(event.action), true);
    lengthRule('reason', str(event.reason), true);
    if (str(event.message).length > LIMIT.message) causes.push(invalidValue('message', '', `can have at most ${LIMIT.message} characters`));
  }
  causes.push(...invalidEach('namespace', namespace, isDns1123Subdomain(namespace)));
  return causes;
}

/** What an events.k8s.io/v1 create adds (the Event as stored, in core/v1 field names; the messages use the internal ones). */
export function validateEventsV1Create(event: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const series = isRecord(event.series) ? event.series : undefined;
  if (series !== undefined) {
    if (!(typeof series.count === 'number' && series.count >= 2)) causes.push(invalidValue('series.count', '', 'should be at least 2'));
    if (!set(series.lastObservedTime)) causes.push(requiredValue('series.lastObservedTime'));
  }
  if (!set(event.eventTime)) causes.push(requiredValue('eventTime'));
  if (event.type !== 'Normal' && event.type !== 'Warning') causes.push(invalidValue('type', '', `has invalid value: ${str(event.type)}`));
  if (set(event.firstTimestamp)) causes.push(invalidValue('firstTimestamp', '', 'needs to be unset'));
  if (set(event.lastTimestamp)) causes.push(invalidValue('lastTimestamp', '', 'needs to be unset'));
  if (typeof event.count === 'number' && event.count !== 0) causes.push(invalidValue('count', '', 'needs to be unset'));
  const source = isRecord(event.source) ? event.source : {};
  if (set(source.component) || set(source.host)) causes.push(invalidValue('source', '', 'needs to be unset'));
  return causes;
}
