// The CRDs: names, scope, printer columns, status subresource, and a schema that is structural everywhere.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cameraDefinition, recorderNodeDefinition } from '../src/crd.js';
import type { JsonSchema } from '../src/structural.js';

/** The value at a dotted path of a schema ("properties.spec.required"). */
function at(node: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, key) => (v as Record<string, unknown> | undefined)?.[key], node);
}

function walk(node: JsonSchema, path: string, visit: (node: JsonSchema, path: string) => void): void {
  visit(node, path);
  const props = node.properties as Record<string, JsonSchema> | undefined;
  for (const [name, child] of Object.entries(props ?? {})) walk(child, `${path}.${name}`, visit);
  if (node.items) walk(node.items as JsonSchema, `${path}[]`, visit);
  if (typeof node.additionalProperties === 'object') walk(node.additionalProperties as JsonSchema, `${path}.*`, visit);
}

for (const crd of [cameraDefinition(), recorderNodeDefinition()]) {
  test(`${crd.metadata.name}: every schema node is structural`, () => {
    walk(crd.spec.versions[0]!.schema.openAPIV3Schema, '', (node, path) => {
      assert.equal(typeof node.type, 'string', `${path} has a type`);
      assert.ok(!('properties' in node && 'additionalProperties' in node), `${path}: additionalProperties beside properties`);
      for (const key of ['anyOf', 'oneOf', 'allOf', '$ref', '$schema', 'const']) assert.ok(!(key in node), `${path}: ${key}`);
      if (node.type === 'object') assert.ok(node.properties || node.additionalProperties || path.endsWith('.metadata'), `${path}: object without fields`);
    });
  });
}

test('Camera: namespaced, cam, status subresource, NODE/PHASE/AGE and URL at -o wide', () => {
  const crd = cameraDefinition();
  assert.equal(crd.metadata.name, 'cameras.vigil.io');
  assert.equal(crd.spec.scope, 'Namespaced');
  assert.deepEqual(crd.spec.names.shortNames, ['cam']);
  const version = crd.spec.versions[0]!;
  assert.equal(version.name, 'v1alpha1');
  assert.deepEqual(version.subresources, { status: {} });
  assert.deepEqual(version.additionalPrinterColumns.map((c) => [c.name.toUpperCase(), c.jsonPath, c.priority ?? 0]), [
    ['NODE', '.status.node', 0], ['PHASE', '.status.phase', 0], ['AGE', '.metadata.creationTimestamp', 0], ['URL', '.status.url', 1],
  ]);
  const spec = at(version.schema.openAPIV3Schema, 'properties.spec');
  const status = at(version.schema.openAPIV3Schema, 'properties.status');
  assert.deepEqual(at(spec, 'required'), ['source']);
  const source = new RegExp(at(spec, 'properties.source.pattern') as string);
  assert.match('rtsp://cam.example:554/stream1', source);
  assert.doesNotMatch('http://cam.example/stream1', source);
  assert.equal(at(spec, 'properties.ptz.default'), false);
  assert.equal(at(spec, 'properties.audio.default'), 'auto');
  assert.equal(at(spec, 'properties.credentialsSecretRef.properties.usernameKey.default'), 'username');
  assert.equal(at(spec, 'properties.record.properties.segmentSeconds.minimum'), 1);
  assert.equal(at(spec, 'properties.record.properties.segmentSeconds.maximum'), 3600);
  assert.deepEqual(at(spec, 'properties.nodeSelector.additionalProperties'), { type: 'string' });
  assert.equal(at(status, 'properties.conditions.x-kubernetes-list-type'), 'map');
  assert.deepEqual(at(status, 'properties.conditions.x-kubernetes-list-map-keys'), ['type']);
  assert.equal(at(status, 'properties.handoverFrom.nullable'), true);
  assert.equal(at(status, 'properties.lastMoveTime.format'), 'date-time');
  assert.equal(at(status, 'properties.lastMoveTime.pattern'), undefined);
});

test('RecorderNode: cluster-scoped, rn, ONLINE/MEMBER/CAMERAS/VERSION/AGE, member defaults to true', () => {
  const crd = recorderNodeDefinition();
  assert.equal(crd.metadata.name, 'recordernodes.vigil.io');
  assert.equal(crd.spec.scope, 'Cluster');
  assert.deepEqual(crd.spec.names.shortNames, ['rn']);
  const version = crd.spec.versions[0]!;
  assert.deepEqual(version.additionalPrinterColumns.filter((c) => !c.priority).map((c) => c.name.toUpperCase()), ['ONLINE', 'MEMBER', 'CAMERAS', 'VERSION', 'AGE']);
  // kubectl get rn -o wide: each node's Service URL and its host through the Ingress.
  assert.deepEqual(version.additionalPrinterColumns.filter((c) => c.priority === 1).map((c) => [c.name.toUpperCase(), c.jsonPath]), [['URL', '.status.url'], ['PUBLIC URL', '.status.publicUrl']]);
  assert.equal(at(version.schema.openAPIV3Schema, 'properties.spec.properties.member.default'), true);
  assert.equal(at(version.schema.openAPIV3Schema, 'properties.status.properties.cameras.minimum'), 0);
});
