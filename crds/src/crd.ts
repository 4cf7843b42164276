// The two CustomResourceDefinitions, built from the zod schemas: names, scope, status subresource, printer columns.
import { z } from 'zod';
import { cameraSpecSchema, cameraStatusSchema } from './camera.js';
import {
  CAMERA_KIND, CAMERA_SELECTABLE_FIELDS, CAMERA_PLURAL, CAMERA_SHORT_NAME, CAMERA_SINGULAR, CATEGORY, GROUP, RECORDER_NODE_KIND, RECORDER_NODE_PLURAL,
  RECORDER_NODE_SHORT_NAME, RECORDER_NODE_SINGULAR, VERSION,
} from './constants.js';
import { recorderNodeSpecSchema, recorderNodeStatusSchema } from './recorder-node.js';
import { toStructural, type JsonSchema } from './structural.js';

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
}

export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    group: string;
    names: { kind: string; listKind: string; plural: string; singular: string; shortNames: string[]; categories: string[] };
    scope: 'Namespaced' | 'Cluster';
    versions: Array<{
      name: string;
      served: boolean;
      storage: boolean;
      subresources: { status: Record<string, never> };
      additionalPrinterColumns: PrinterColumn[];
      selectableFields?: Array<{ jsonPath: string }>;
      schema: { openAPIV3Schema: JsonSchema };
    }>;
  };
}

/** zod → JSON Schema with the input view: a field with a default is optional for the writer and the API server fills it in. */
function jsonSchemaOf(schema: z.ZodType, path: string): JsonSchema {
  return toStructural(z.toJSONSchema(schema, { io: 'input', target: 'openapi-3.0' }) as JsonSchema, path);
}

function rootSchema(kind: string, spec: z.ZodType, status: z.ZodType, description: string): JsonSchema {
  return {
    type: 'object',
    description,
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec: jsonSchemaOf(spec, `${kind}.spec`),
      status: jsonSchemaOf(status, `${kind}.status`),
    },
    required: ['spec'],
  };
}

const AGE: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

function definition(opts: {
  kind: string; plural: string; singular: string; shortName: string; scope: 'Namespaced' | 'Cluster';
  columns: PrinterColumn[]; schema: JsonSchema; selectableFields?: string[];
}): CustomResourceDefinition {
  const selectable = opts.selectableFields === undefined ? {} : { selectableFields: opts.selectableFields.map((field) => ({ jsonPath: `.${field}` })) };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${opts.plural}.${GROUP}`, labels: { 'app.kubernetes.io/name': 'vigil', 'app.kubernetes.io/component': 'crd' } },
    spec: {
      group: GROUP,
      names: { kind: opts.kind, listKind: `${opts.kind}List`, plural: opts.plural, singular: opts.singular, shortNames: [opts.shortName], categories: [CATEGORY] },
      scope: opts.scope,
      versions: [
        { name: VERSION, served: true, storage: true, subresources: { status: {} }, additionalPrinterColumns: opts.columns, ...selectable, schema: { openAPIV3Schema: opts.schema } },
      ],
    },
  };
}

export function cameraDefinition(): CustomResourceDefinition {
  return definition({
    kind: CAMERA_KIND,
    plural: CAMERA_PLURAL,
    singular: CAMERA_SINGULAR,
    shortName: CAMERA_SHORT_NAME,
    scope: 'Namespaced',
    columns: [
      { name: 'Node', type: 'string', jsonPath: '.status.node', description: 'the node that records the camera' },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
      AGE,
      { name: 'URL', type: 'string', jsonPath: '.status.url', priority: 1, description: 'the recording node\'s internal base URL' },
    ],
    schema: rootSchema(CAMERA_KIND, cameraSpecSchema, cameraStatusSchema, 'A camera Vigil records; metadata.name is the camera id.'),
    // A recorder watches only the cameras it records (`status.node=<node>`) and hands over (`status.handoverFrom=<node>`).
    selectableFields: [...CAMERA_SELECTABLE_FIELDS],
  });
}

export function recorderNodeDefinition(): CustomResourceDefinition {
  return definition({
    kind: RECORDER_NODE_KIND,
    plural: RECORDER_NODE_PLURAL,
    singular: RECORDER_NODE_SINGULAR,
    shortName: RECORDER_NODE_SHORT_NAME,
    scope: 'Cluster',
    columns: [
      { name: 'Online', type: 'boolean', jsonPath: '.status.online' },
      { name: 'Member', type: 'boolean', jsonPath: '.spec.member' },
      { name: 'Cameras', type: 'integer', jsonPath: '.status.cameras' },
      { name: 'Version', type: 'string', jsonPath: '.status.version' },
      AGE,
      { name: 'URL', type: 'string', jsonPath: '.status.url', priority: 1, description: 'the recorder\'s internal base URL (its per-node Service)' },
      { name: 'Public URL', type: 'string', jsonPath: '.status.publicUrl', priority: 1, description: 'the recorder\'s base URL through the Ingress: its per-node host' },
    ],
    schema: rootSchema(RECORDER_NODE_KIND, recorderNodeSpecSchema, recorderNodeStatusSchema, 'A Kubernetes Node that may record; metadata.name is the Node name.'),
  });
}

/** The generated files, by name under helm/vigil/crds/. */
export function definitionFiles(): Array<{ file: string; crd: CustomResourceDefinition }> {
  return [
    { file: `${GROUP}_${CAMERA_PLURAL}.yaml`, crd: cameraDefinition() },
    { file: `${GROUP}_${RECORDER_NODE_PLURAL}.yaml`, crd: recorderNodeDefinition() },
  ];
}
