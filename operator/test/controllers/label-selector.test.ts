// --node-selector: the label selector forms kubectl accepts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseLabelSelector } from '../../src/controllers/label-selector.js';

test('equality, inequality, existence, in and notin', () => {
  const labels = { role: 'recorder', zone: 'a', gpu: 'yes' };
  assert.equal(parseLabelSelector('')(labels), true);
  assert.equal(parseLabelSelector('role=recorder')(labels), true);
  assert.equal(parseLabelSelector('role==recorder,zone!=b')(labels), true);
  assert.equal(parseLabelSelector('role=other')(labels), false);
  assert.equal(parseLabelSelector('gpu,!spare')(labels), true);
  assert.equal(parseLabelSelector('zone in (a, b),role notin (db)')(labels), true);
  assert.equal(parseLabelSelector('zone notin (a)')(labels), false);
  assert.throws(() => parseLabelSelector('role=(x'));
});
