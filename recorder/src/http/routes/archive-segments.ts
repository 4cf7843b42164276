// GET /api/archive/{camera_id}/segments: the segment listing of a window, with the days that hold recordings.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ArchiveDiskError, ArchiveIndexUnavailableError, ListingQueryError } from '../../archive/archive-errors.js';
import type { DayClock } from '../../archive/day-clock.js';
import { resolveListingWindow } from '../../archive/listing-window.js';
import { listSegments, type ArchiveSource } from '../../archive/segment-listing.js';
import type { ClosedSegment, OpenSegmentInfo } from '../../recording/closed-segment.js';
import type { TokenAuthenticator } from '../auth.js';
import { ApiError } from '../error-catalogue.js';
import { cameraIdParam, errorResponse } from '../schemas.js';

export interface SegmentsRouteOptions {
  auth: TokenAuthenticator;
  archive: ArchiveSource;
  /** The file the camera is writing now (any format), if it records. */
  openSegment(cameraId: string): OpenSegmentInfo | undefined;
  /** Closed files not yet in the index (being synced and reported). */
  finishingSegments(cameraId: string): ClosedSegment[];
  nodeClock: DayClock;
  now(): number;
}

const segmentRecord = z.object({
  timestamp: z.string(),
  sequence: z.number().int(),
  filename: z.string(),
  size: z.number().int(),
  mtime: z.number().int(),
  is_open: z.boolean(),
  /** The file itself (GET …/segments/{filename}), relative to the node that answered. */
  url: z.string(),
});

export const archiveSegmentsRoutes: FastifyPluginAsyncZod<SegmentsRouteOptions> = async (app, opts) => {
  app.get(
    '/api/archive/:camera_id/segments',
    {
      schema: {
        params: cameraIdParam,
        // Bounds stay strings here so that a non-integer gets the listing's own message naming it.
        querystring: z.object({
          from: z.string().optional(),
          to: z.string().optional(),
          tz_offset_minutes: z.string().optional(),
        }),
        response: { 200: z.object({ archive: z.array(segmentRecord), days: z.array(z.string()) }), 400: errorResponse, 500: errorResponse, 503: errorResponse },
      },
      // A camera no node knows lists an empty archive (spec, listing rule 6).
      config: { camera: { from: 'params', key: 'camera_id', unknown: 'route' }, crossOrigin: true },
      onRequest: async (req) => {
        opts.auth.require(req, 'viewer');
      },
    },
    async (req, reply) => {
      const now = opts.now();
      try {
        const window = resolveListingWindow(req.query, now, opts.nodeClock);
        // The answer is built here to the schema above (which documents it); a day of 1,440 records
        // skips the schema pass and goes straight to JSON.
        void reply.serializer(JSON.stringify);
        const listing = await listSegments(opts.archive, req.params.camera_id, window, opts.openSegment(req.params.camera_id), now, opts.finishingSegments(req.params.camera_id));
        const base = `/api/archive/${req.params.camera_id}/segments/`;
        return { archive: listing.archive.map((s) => ({ ...s, url: base + s.filename.slice(s.filename.lastIndexOf('/') + 1) })), days: listing.days };
      } catch (err) {
        if (err instanceof ListingQueryError) throw new ApiError(err.kind, err.message, { parameter: err.parameter });
        if (err instanceof ArchiveIndexUnavailableError) throw new ApiError('archive_index_unavailable', err.message);
        if (err instanceof ArchiveDiskError) throw new ApiError('archive_unreadable', err.message);
        throw err;
      }
    },
  );
};
