// GET /, /archive and /assets/*: the bundled page (dist/web; live view and archive), index revalidated by ETag, hashed assets cached for a year.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync } from 'fastify';
import { ApiError } from '../error-catalogue.js';

export interface WebPageRouteOptions {
  /** Directory holding index.html and assets/ (default: dist/web beside the compiled sources). */
  webRoot?: string;
  onMissing?(root: string): void;
}

/** The compiled file sits in dist/src/http/routes/; the bundle in dist/web/. */
const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../../web/', import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
};

interface StaticFile {
  body: Buffer;
  type: string;
  etag: string;
}

function staticFile(body: Buffer, type: string): StaticFile {
  return { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

export const webPageRoutes: FastifyPluginAsync<WebPageRouteOptions> = async (app, opts) => {
  const root = opts.webRoot ?? DEFAULT_WEB_ROOT;
  let index: StaticFile;
  try {
    index = staticFile(await readFile(join(root, 'index.html')), 'text/html; charset=utf-8');
  } catch {
    opts.onMissing?.(root);
    return;
  }
  // Asset names carry a content hash (scripts/build-web.mjs), so a name never changes meaning.
  const assets = new Map<string, StaticFile>();
  for (const name of await readdir(join(root, 'assets')).catch(() => [] as string[])) {
    const type = CONTENT_TYPES[extname(name)];
    if (type !== undefined) assets.set(name, staticFile(await readFile(join(root, 'assets', name)), type));
  }

  // One page, one bundle: the script shows the live grid at / and the archive at /archive.
  for (const path of ['/', '/archive']) {
    app.get(path, async (req, reply) => {
      void reply.header('Cache-Control', 'no-cache').header('ETag', index.etag).header('X-Content-Type-Options', 'nosniff');
      if (req.headers['if-none-match'] === index.etag) return reply.status(304).send();
      return reply.type(index.type).send(index.body);
    });
  }

  app.get<{ Params: { name: string } }>('/assets/:name', async (req, reply) => {
    const file = assets.get(req.params.name);
    if (file === undefined) throw new ApiError('not_found', `no asset ${req.params.name}`);
    void reply.header('Cache-Control', 'public, max-age=31536000, immutable').header('ETag', file.etag).header('X-Content-Type-Options', 'nosniff');
    return reply.type(file.type).send(file.body);
  });
};
