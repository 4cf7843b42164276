// GET /, /archive and /assets/*: the built page, with no-cache + ETag on the index and year-long caching of hashed assets.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startLiveApp } from './live-fixtures.js';

test('the page is served from dist/web: index revalidated by ETag, hashed assets immutable', async (t) => {
  const live = await startLiveApp(t);
  const index = await live.app.inject({ url: '/' });
  assert.equal(index.statusCode, 200, 'the page is built by npm run build');
  assert.match(String(index.headers['content-type']), /^text\/html/);
  assert.equal(index.headers['cache-control'], 'no-cache');
  const etag = String(index.headers['etag']);
  assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
  assert.equal((await live.app.inject({ url: '/', headers: { 'if-none-match': etag } })).statusCode, 304);
  // The archive page is the same page (one bundle); its script shows the archive at /archive.
  const archive = await live.app.inject({ url: '/archive?camera=gate' });
  assert.equal(archive.statusCode, 200);
  assert.equal(archive.headers['etag'], etag);

  const script = /<script type="module" src="\/assets\/(app-[A-Z0-9]+\.js)">/.exec(index.body)?.[1];
  assert.ok(script !== undefined, 'the index names a content-hashed script');
  const asset = await live.app.inject({ url: `/assets/${script}` });
  assert.equal(asset.statusCode, 200);
  assert.match(String(asset.headers['content-type']), /^text\/javascript/);
  assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.ok(asset.body.includes('/websocket/'));

  const missing = await live.app.inject({ url: '/assets/app-NOPE.js' });
  assert.equal(missing.statusCode, 404);
  assert.equal(missing.json().error.code, 'not_found');
  assert.equal((await live.app.inject({ url: '/assets/..%2Fpackage.json' })).statusCode, 404);
});
