// The committed CRD YAML under helm/vigil/crds/ is exactly what the zod schemas generate.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { CRD_DIR, GENERATE_COMMAND, renderDefinitions } from '../src/render.js';

test('the committed CRD YAML equals a fresh generation', () => {
  const rendered = renderDefinitions();
  const committed = readdirSync(CRD_DIR).filter((f) => f.endsWith('.yaml')).sort();
  assert.deepEqual(committed, rendered.map((r) => r.file).sort(), `helm/vigil/crds/ holds other files than the generator writes: run \`${GENERATE_COMMAND}\``);
  for (const { file, text } of rendered) {
    const onDisk = readFileSync(join(CRD_DIR, file), 'utf8');
    assert.ok(onDisk === text, `helm/vigil/crds/${file} differs from the zod schemas in crds/src: run \`${GENERATE_COMMAND}\` and commit the result`);
  }
});

test('the YAML is read back (as YAML 1.1, like kubectl) into the same documents', () => {
  for (const { text } of renderDefinitions()) {
    const doc = parse(text, { version: '1.1' }) as { spec: { versions: Array<{ schema: { openAPIV3Schema: { properties: Record<string, unknown> } } }> } };
    const spec = doc.spec.versions[0]!.schema.openAPIV3Schema.properties.spec as { properties: Record<string, { enum?: unknown[] }> };
    if (spec.properties.audio) assert.deepEqual(spec.properties.audio.enum, ['auto', 'off', 'transcode']);
  }
});
