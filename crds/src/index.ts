// @vigil/crds: the Camera and RecorderNode schemas, types and names the operator and the recorder share.
export * from './constants.js';
export * from './condition.js';
export * from './camera.js';
export * from './recorder-node.js';
export * from './objects.js';
export * from './membership-request.js';
export { cameraDefinition, recorderNodeDefinition, definitionFiles, type CustomResourceDefinition, type PrinterColumn } from './crd.js';
export { toStructural, StructuralSchemaError, type JsonSchema } from './structural.js';
export { renderDefinitions, CRD_DIR, GENERATE_COMMAND } from './render.js';
export * from './node-certificates.js';
export * from './recorder-names.js';
