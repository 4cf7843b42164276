// GET /api/archive/{camera_id}/segments/{filename}: one segment file as it is on disk, whole or a byte range, closed or growing.
import { createReadStream } from 'node:fs';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { SegmentFileError } from '../../playback/segment-file.js';
import type { TokenAuthenticator } from '../auth.js';
import { parseByteRange } from '../byte-range.js';
import { ApiError, errorBody } from '../error-catalogue.js';
import { cameraIdParam } from '../schemas.js';
import type { PlaybackService } from '../services.js';

export interface SegmentFileRouteOptions {
  auth: TokenAuthenticator;
  playback: PlaybackService;
}

export const archiveSegmentFileRoutes: FastifyPluginAsyncZod<SegmentFileRouteOptions> = async (app, opts) => {
  app.get(
    '/api/archive/:camera_id/segments/:filename',
    {
      schema: {
        params: cameraIdParam.extend({ filename: z.string() }),
        querystring: z.object({ ticket: z.string().optional() }),
      },
      config: { camera: { from: 'params', key: 'camera_id', unknown: 'route' }, crossOrigin: true },
      onRequest: async (req) => {
        opts.auth.requireOrTicket(req, 'viewer', { purpose: 'media', camera: (req.params as { camera_id: string }).camera_id });
      },
    },
    async (req, reply) => {
      let file;
      try {
        file = await opts.playback.segmentFile(req.params.camera_id, req.params.filename);
      } catch (err) {
        if (err instanceof SegmentFileError) throw new ApiError(err.kind, err.message);
        throw err;
      }
      // Revalidated every time: a file being written grows, and retention may delete any file.
      void reply.header('ETag', file.etag).header('Last-Modified', file.modified.toUTCString()).header('Cache-Control', 'private, no-cache');
      if (matches(req.headers['if-none-match'], file.etag)) return reply.status(304).send();
      // If-Range naming another version asks for the whole (new) file rather than a piece of it.
      const ifRange = req.headers['if-range'];
      const rangeHeader = ifRange === undefined || ifRange === file.etag ? req.headers.range : undefined;
      const range = parseByteRange(rangeHeader, file.size);
      if (range.kind === 'unsatisfiable') {
        return reply.status(416).header('Content-Range', `bytes */${file.size}`).send(errorBody('range_not_satisfiable', `the range is outside the ${file.size} bytes of ${file.filename}`));
      }
      void reply.header('Content-Type', 'video/mp4').header('Accept-Ranges', 'bytes').header('Content-Disposition', `inline; filename="${req.params.filename}"`);
      if (file.size === 0) return reply.status(200).header('Content-Length', '0').send('');
      const [start, end] = range.kind === 'range' ? [range.start, range.end] : [0, file.size - 1];
      if (range.kind === 'range') void reply.status(206).header('Content-Range', `bytes ${start}-${end}/${file.size}`);
      return reply.header('Content-Length', String(end - start + 1)).send(createReadStream(file.path, { start, end }));
    },
  );
};

/** If-None-Match: a list of tags or `*`. */
function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}
