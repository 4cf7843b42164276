// The CRDs: names, scope, printer columns, status subresource, and a schema that is structural everywhere.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cameraDefinition, recorderNodeDefinition } from '../src/crd.js';
import type { JsonSchema } from '../src/structural.js';

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
  const schema = version.schema.openAPIV3Schema as any;
  const spec = schema.properties.spec;
  assert.deepEqual(spec.required, ['source']);
  assert.match('rtsp://cam.example:554/stream1', new RegExp(spec.properties.source.pattern));
  assert.doesNotMatch('http://cam.example/stream1', new RegExp(spec.properties.source.pattern));
  assert.equal(spec.properties.ptz.default, false);
  assert.equal(spec.properties.audio.default, 'auto');
  assert.equal(spec.properties.credentialsSecretRef.properties.usernameKey.default, 'username');
  assert.deepEqual([spec.properties.record.properties.segmentSeconds.minimum, spec.properties.record.properties.segmentSeconds.maximum], [1, 3600]);
  assert.deepEqual(spec.properties.nodeSelector.additionalProperties, { type: 'string' });
  const conditions = schema.properties.status.properties.conditions;
  assert.equal(conditions['x-kubernetes-list-type'], 'map');
  assert.deepEqual(conditions['x-kubernetes-list-map-keys'], ['type']);
  assert.equal(schema.properties.status.properties.handoverFrom.nullable, true);
  assert.equal(schema.properties.status.properties.lastMoveTime.format, 'date-time');
  assert.equal(schema.properties.status.properties.lastMoveTime.pattern, undefined);
});

test('RecorderNode: cluster-scoped, rn, ONLINE/MEMBER/CAMERAS/VERSION/AGE, member defaults to true', () => {
  const crd = recorderNodeDefinition();
  assert.equal(crd.metadata.name, 'recordernodes.vigil.io');
  assert.equal(crd.spec.scope, 'Cluster');
  assert.deepEqual(crd.spec.names.shortNames, ['rn']);
  const version = crd.spec.versions[0]!;
  assert.deepEqual(version.additionalPrinterColumns.map((c) => c.name.toUpperCase()), ['ONLINE', 'MEMBER', 'CAMERAS', 'VERSION', 'AGE']);
  const spec = (version.schema.openAPIV3Schema as any).properties.spec;
  assert.equal(spec.properties.member.default, true);
  assert.equal((version.schema.openAPIV3Schema as any).properties.status.properties.cameras.minimum, 0);
});
