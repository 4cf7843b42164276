// GET /api/archive/{camera_id}/play: one fragmented MP4 of a window, streamed from this node's segments as the client reads.
import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ArchiveDiskError } from '../../archive/archive-errors.js';
import { PlaybackError } from '../../playback/playback-errors.js';
import { compactUtc } from '../../util/iso-time.js';
import type { TokenAuthenticator } from '../auth.js';
import { ApiError } from '../error-catalogue.js';
import type { OpenStreams } from '../open-streams.js';
import { cameraIdParam } from '../schemas.js';
import type { CameraControl, PlaybackService } from '../services.js';
import { jobWindow } from '../window-query.js';

export interface PlayRouteOptions {
  auth: TokenAuthenticator;
  cameras: Pick<CameraControl, 'state'>;
  playback: PlaybackService;
  /** Open play streams, limited per node and per token (429 past either). */
  streams: OpenStreams;
}

export const archivePlayRoutes: FastifyPluginAsyncZod<PlayRouteOptions> = async (app, opts) => {
  app.get(
    '/api/archive/:camera_id/play',
    {
      schema: {
        params: cameraIdParam,
        // Bounds stay strings here so that a non-integer gets the window's own message naming it. The answer is a
        // video/mp4 stream (no response schema, as for job downloads); errors have the usual body.
        querystring: z.object({ from: z.string().optional(), to: z.string().optional(), ticket: z.string().optional() }),
      },
      // A camera removed from the configuration still plays from its archive; one with none answers 404 itself.
      config: { camera: { from: 'params', key: 'camera_id', unknown: 'route' }, crossOrigin: true },
      onRequest: async (req) => {
        opts.auth.requireOrTicket(req, 'viewer', { purpose: 'media', camera: (req.params as { camera_id: string }).camera_id });
      },
    },
    async (req, reply) => {
      const cameraId = req.params.camera_id;
      const { from, to } = jobWindow(req.query);
      const caller = opts.auth.requireOrTicket(req, 'viewer', { purpose: 'media', camera: cameraId });
      // Counted from before the files are opened until the answer is over, however it ends.
      const ticket = opts.streams.admit('play', opts.auth.disabled ? undefined : caller.name);
      reply.raw.once('close', () => ticket.release());
      const abort = new AbortController();
      let stream;
      try {
        stream = await opts.playback.open({ cameraId, fromMs: from * 1000, toMs: to * 1000 }, abort.signal);
      } catch (err) {
        ticket.release();
        if (err instanceof PlaybackError) {
          if (err.kind === 'no_recordings' && opts.cameras.state(cameraId) === undefined) throw new ApiError('camera_not_found', `camera ${cameraId} is not known on this node and has no recordings here`);
          throw new ApiError(err.kind, err.message);
        }
        if (err instanceof ArchiveDiskError) throw new ApiError('archive_unreadable', err.message);
        throw err;
      }
      const play = stream;
      // The client went away (or the answer is complete): stop reading the disk.
      reply.raw.once('close', () => {
        abort.abort();
        play.close();
      });
      const body = Readable.from(play.chunks, { objectMode: true, highWaterMark: 2 });
      return reply
        .header('Content-Type', 'video/mp4')
        .header('Content-Disposition', `inline; filename="${cameraId}_${compactUtc(new Date(from * 1000))}-${compactUtc(new Date(to * 1000))}_play.mp4"`)
        .header('Cache-Control', 'no-store')
        .header('Accept-Ranges', 'none')
        .header('Vigil-Start', (play.startWallMs / 1000).toFixed(3))
        .send(body);
    },
  );
};
