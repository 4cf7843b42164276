// The API document: /api/openapi.json is valid OpenAPI 3.1, and it, ERROR_CATALOGUE and docs/api.md describe the same API.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { ERROR_CATALOGUE } from '../../src/http/error-catalogue.js';
import { startRecorderProcess } from '../support/recorder-process.js';
import { tempDir } from '@vigil/testing/temp-dir';

const API_MD = fileURLToPath(new URL('../../../../docs/api.md', import.meta.url));

/** Documented in docs/api.md but deliberately absent from the OpenAPI document. */
const DOCS_ONLY = new Set([
  'WEBSOCKET /websocket/{camera_id}', // a raw upgrade handler on the HTTP server, not a fastify route
  'GET /', // the bundled live-view page (and its /assets/), hidden in http/openapi.ts
]);

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'WEBSOCKET'];

/** `## POST /cameras/start, POST /cameras/stop` and `## POST /api/ptz/move, /api/ptz/stop` name several endpoints. */
function documentedEndpoints(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const line of markdown.split('\n')) {
    const heading = /^## (.+)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    let method: string | undefined;
    for (const part of heading.replace(/\s*\(.*\)\s*$/, '').split(/,\s*/)) {
      const m = /^(?:(\S+)\s+)?(\/\S*)$/.exec(part.trim());
      if (m === null) break; // a prose heading such as "## Errors"
      const named = m[1]?.toUpperCase();
      if (named !== undefined) {
        if (!METHODS.includes(named)) break;
        method = named;
      }
      if (method === undefined) break;
      out.add(`${method} ${m[2] ?? ''}`);
    }
  }
  return out;
}

function documentedErrors(markdown: string): Map<string, number> {
  const start = markdown.indexOf('<!-- error-catalogue:start -->');
  const end = markdown.indexOf('<!-- error-catalogue:end -->');
  assert.ok(start >= 0 && end > start, 'docs/api.md has the error-catalogue markers');
  const rows = new Map<string, number>();
  for (const line of markdown.slice(start, end).split('\n')) {
    const m = /^\|\s*`([a-z0-9_]+)`\s*\|\s*(\d{3})\s*\|/.exec(line);
    if (m?.[1] === undefined) continue;
    assert.ok(!rows.has(m[1]), `${m[1]} is listed once`);
    rows.set(m[1], Number(m[2]));
  }
  return rows;
}

test('every catalogue code is in the docs table with the same status, and nothing else is', async () => {
  const documented = documentedErrors(await readFile(API_MD, 'utf8'));
  const catalogue = new Map(Object.entries(ERROR_CATALOGUE).map(([code, e]) => [code, e.status as number]));
  assert.deepEqual(Object.fromEntries([...documented].sort()), Object.fromEntries([...catalogue].sort()));
});

test('/api/openapi.json is a valid OpenAPI 3.1 document whose endpoints are exactly those of docs/api.md', { timeout: 30_000 }, async (t) => {
  const dir = await tempDir(t);
  const rec = await startRecorderProcess({ dir, config: { auth: { disabled: true }, cameras: [] } });
  t.after(() => rec.stop());
  const res = await fetch(`${rec.url}/api/openapi.json`);
  assert.equal(res.status, 200);
  const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
  assert.equal(doc.openapi, '3.1.0');

  const validator = new Validator();
  const verdict = await validator.validate(doc);
  assert.equal(verdict.valid, true, JSON.stringify(verdict.errors, null, 2));

  const inDocument = new Set<string>();
  for (const [path, ops] of Object.entries(doc.paths)) for (const method of Object.keys(ops)) inDocument.add(`${method.toUpperCase()} ${path}`);
  const inDocs = documentedEndpoints(await readFile(API_MD, 'utf8'));
  for (const only of DOCS_ONLY) {
    assert.ok(inDocs.has(only), `docs/api.md documents ${only}`);
    assert.ok(!inDocument.has(only), `${only} stays out of the OpenAPI document`);
    inDocs.delete(only);
  }
  assert.deepEqual([...inDocument].filter((e) => !inDocs.has(e)).sort(), [], 'endpoints of the OpenAPI document missing a "## METHOD path" section in docs/api.md');
  assert.deepEqual([...inDocs].filter((e) => !inDocument.has(e)).sort(), [], 'docs/api.md sections with no endpoint in the OpenAPI document');
});
