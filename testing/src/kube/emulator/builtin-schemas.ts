// Schemas of the built-in kinds, read from the generated models of @kubernetes/client-node (their attributeTypeMap), plus the strategic-merge list keys.
// The generated models only: importing the whole client costs seconds of start-up for nothing the emulator uses.
import * as clientNode from '@kubernetes/client-node/dist/gen/models/all.js';
import type { Schema } from './schema.js';

interface ModelAttribute {
  name: string;
  baseName: string;
  type: string;
  format: string;
}

interface ModelClass {
  attributeTypeMap?: ModelAttribute[];
}

/**
 * List fields that strategic merge patch and server-side apply merge item by item rather than replace,
 * keyed "Model.field" → merge key ('' = a set of scalars). The values are those of the Go struct tags
 * (`patchMergeKey`, `listMapKeys`) in k8s.io/api for the fields Vigil's objects use.
 */
const LIST_MERGE_KEYS: Record<string, { key: string; keys?: string[]; retainKeys?: boolean }> = {
  'V1PodSpec.containers': { key: 'name' },
  'V1PodSpec.initContainers': { key: 'name' },
  'V1PodSpec.ephemeralContainers': { key: 'name' },
  'V1PodSpec.volumes': { key: 'name', retainKeys: true },
  'V1PodSpec.imagePullSecrets': { key: 'name' },
  'V1PodSpec.hostAliases': { key: 'ip' },
  'V1PodSpec.schedulingGates': { key: 'name' },
  'V1PodSpec.resourceClaims': { key: 'name', retainKeys: true },
  'V1PodSpec.topologySpreadConstraints': { key: 'topologyKey', keys: ['topologyKey', 'whenUnsatisfiable'] },
  'V1Container.env': { key: 'name' },
  'V1Container.ports': { key: 'containerPort', keys: ['containerPort', 'protocol'] },
  'V1Container.volumeMounts': { key: 'mountPath' },
  'V1Container.volumeDevices': { key: 'devicePath' },
  'V1EphemeralContainer.env': { key: 'name' },
  'V1EphemeralContainer.volumeMounts': { key: 'mountPath' },
  'V1ServiceSpec.ports': { key: 'port', keys: ['port', 'protocol'] },
  'V1ObjectMeta.finalizers': { key: '' },
  'V1ObjectMeta.ownerReferences': { key: 'uid' },
  'V1PodStatus.conditions': { key: 'type' },
  'V1PodStatus.podIPs': { key: 'ip' },
  'V1NodeStatus.conditions': { key: 'type' },
  'V1NodeStatus.addresses': { key: 'type' },
  'V1DeploymentStatus.conditions': { key: 'type' },
  'V1StatefulSetStatus.conditions': { key: 'type' },
  'V1ReplicaSetStatus.conditions': { key: 'type' },
  'V1DaemonSetStatus.conditions': { key: 'type' },
  'V1PodDisruptionBudgetStatus.conditions': { key: 'type' },
  'V1NamespaceStatus.conditions': { key: 'type' },
  'V1JobStatus.conditions': { key: 'type' },
  'V1ServiceStatus.conditions': { key: 'type' },
  'V1CertificateSigningRequestStatus.conditions': { key: 'type' },
};

/**
 * Fields of type resource.Quantity (or maps of them, ResourceList) in k8s.io/api: client-node's models call them
 * strings, the API server decodes them with the Quantity grammar.
 */
const QUANTITY_FIELDS = new Set([
  'V1ResourceRequirements.limits', 'V1ResourceRequirements.requests', 'V1VolumeResourceRequirements.limits', 'V1VolumeResourceRequirements.requests',
  'V1EmptyDirVolumeSource.sizeLimit', 'V1PodSpec.overhead', 'V1ResourceQuotaSpec.hard', 'V1ResourceQuotaStatus.hard', 'V1ResourceQuotaStatus.used',
  'V1LimitRangeItem.max', 'V1LimitRangeItem.min', 'V1LimitRangeItem._default', 'V1LimitRangeItem.defaultRequest', 'V1LimitRangeItem.maxLimitRequestRatio',
  'V1PersistentVolumeClaimStatus.capacity', 'V1PersistentVolumeClaimStatus.allocatedResources', 'V1PersistentVolumeSpec.capacity',
  'V1NodeStatus.capacity', 'V1NodeStatus.allocatable', 'V1ContainerStatus.allocatedResources', 'V1ResourceFieldSelector.divisor',
  'V2MetricTarget.value', 'V2MetricTarget.averageValue', 'V2MetricValueStatus.value', 'V2MetricValueStatus.averageValue',
]);

const MAP_TYPE = /^\{ \[key: string\]: (.+); \}$/;
const ARRAY_TYPE = /^Array<(.+)>$/;

/** Builds and caches the schema of each client-node model; one instance per emulator. */
export class BuiltinSchemas {
  private readonly cache = new Map<string, Schema>();
  private readonly models = clientNode as unknown as Record<string, ModelClass | undefined>;

  /** The schema of a model (e.g. "V1Deployment"), or undefined when client-node has no such model. */
  model(modelName: string): Schema | undefined {
    const cached = this.cache.get(modelName);
    if (cached !== undefined) return cached;
    const attrs = this.models[modelName]?.attributeTypeMap;
    if (!Array.isArray(attrs)) return undefined;
    // Registered before its fields are filled, so recursive models (JSONSchemaProps) end up sharing one node.
    const schema: Schema = { type: 'object', properties: {}, modelName };
    this.cache.set(modelName, schema);
    for (const a of attrs) {
      const field = this.fieldSchema(a.type, a.format);
      const merge = LIST_MERGE_KEYS[`${modelName}.${a.baseName}`];
      if (merge !== undefined && field.type === 'array') {
        if (merge.key === '') {
          field.patchStrategy = 'merge';
          field.listType = 'set';
        } else {
          field.patchMergeKey = merge.key;
          field.patchStrategy = merge.retainKeys ? 'merge,retainKeys' : 'merge';
          field.listType = 'map';
          field.listMapKeys = merge.keys ?? [merge.key];
        }
      }
      if (QUANTITY_FIELDS.has(`${modelName}.${a.name}`) || QUANTITY_FIELDS.has(`${modelName}.${a.baseName}`)) {
        if (field.additionalProperties !== undefined && field.additionalProperties !== true) field.additionalProperties.quantity = true;
        else field.quantity = true;
      }
      (schema.properties as Record<string, Schema>)[a.baseName] = field;
    }
    return schema;
  }

  private fieldSchema(type: string, format: string): Schema {
    switch (type) {
      case 'string':
        return format === '' ? { type: 'string' } : { type: 'string', format };
      case 'number':
        return format === 'int32' || format === 'int64' ? { type: 'integer', format } : { type: 'number', ...(format ? { format } : {}) };
      case 'boolean':
        return { type: 'boolean' };
      case 'Date':
        return { type: 'string', format: 'date-time' };
      case 'V1MicroTime':
        return { type: 'string', format: 'date-time-micro' };
      case 'IntOrString':
        return { intOrString: true };
      case 'any':
        return { preserveUnknownFields: true };
    }
    const map = MAP_TYPE.exec(type);
    if (map !== null) return { type: 'object', additionalProperties: this.fieldSchema(map[1] as string, '') };
    const array = ARRAY_TYPE.exec(type);
    if (array !== null) return { type: 'array', items: this.fieldSchema(array[1] as string, '') };
    const model = this.model(type);
    // A type client-node does not describe: accept anything rather than reject valid objects.
    return model ?? { preserveUnknownFields: true };
  }
}
