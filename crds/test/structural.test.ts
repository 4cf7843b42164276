// The zod JSON Schema → Kubernetes structural schema rewrite, node by node.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { StructuralSchemaError, toStructural, type JsonSchema } from '../src/structural.js';

const convert = (schema: z.ZodType) => toStructural(z.toJSONSchema(schema, { io: 'input', target: 'openapi-3.0' }) as JsonSchema);

test('strict objects lose additionalProperties: false and keep required and defaults', () => {
  const out = convert(z.object({ a: z.string(), b: z.boolean().default(true) }).strict());
  assert.deepEqual(out, { type: 'object', properties: { a: { type: 'string' }, b: { type: 'boolean', default: true } }, required: ['a'] });
});

test('X | null becomes X with nullable; the safe-integer bounds zod adds are dropped; ranges stay', () => {
  assert.deepEqual(convert(z.string().nullable()), { type: 'string', nullable: true });
  assert.deepEqual(convert(z.number().int().min(0)), { type: 'integer', minimum: 0 });
  assert.deepEqual(convert(z.number().int().min(1).max(5)), { type: 'integer', minimum: 1, maximum: 5 });
  assert.deepEqual(toStructural({ anyOf: [{ type: 'integer' }, { type: 'null' }] }), { type: 'integer', nullable: true });
});

test('numeric exclusive bounds become OpenAPI 3.0 booleans', () => {
  assert.deepEqual(toStructural({ type: 'number', exclusiveMinimum: 0 }), { type: 'number', minimum: 0, exclusiveMinimum: true });
});

test('maps keep a typed additionalProperties; const becomes a one-value enum', () => {
  assert.deepEqual(convert(z.record(z.string(), z.string())), { type: 'object', additionalProperties: { type: 'string' } });
  assert.deepEqual(convert(z.literal('x')), { type: 'string', enum: ['x'] });
});

test('what has no structural form is refused with its path', () => {
  assert.throws(() => convert(z.object({ u: z.union([z.string(), z.number()]) })), (err: unknown) => err instanceof StructuralSchemaError && /\.u/.test(err.message));
  assert.throws(() => toStructural({ description: 'no type' }), StructuralSchemaError);
});
