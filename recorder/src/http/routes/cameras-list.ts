// GET /api/cameras: the cameras this node records (state and, while streaming, codec and picture size) and, in a cluster, those other nodes record and where.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { TokenAuthenticator } from '../auth.js';
import { errorResponse } from '../schemas.js';
import type { CameraLocator } from '../../cameras/camera-locator.js';
import { ownerBaseUrl } from '../camera-routing.js';
import type { CameraControl } from '../services.js';

export interface CameraListRouteOptions {
  auth: TokenAuthenticator;
  cameras: CameraControl;
  locator: CameraLocator;
}

const cameraEntry = z.object({
  id: z.string(),
  state: z.enum(['recording', 'stalled', 'stopped']),
  /** The codecs parameter for MSE, e.g. 'avc1.42C01E' or 'avc1.4D401F,mp4a.40.2'; null until the camera streams. */
  codec: z.string().nullable(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  ptz: z.boolean(),
  /** How this node reads the camera: `native` (in the recorder) or `ffmpeg`; null when stopped or on another node. */
  ingest: z.enum(['native', 'ffmpeg']).nullable(),
  /** Why the camera is read by ffmpeg although native ingest was wanted (e.g. an MJPEG camera); null otherwise. */
  ingest_fallback_reason: z.string().nullable(),
  /** RTSP cameras: how RTP travels now (`tcp` interleaved, or `udp`), or is tried next while the camera is down; null otherwise. */
  rtsp_transport: z.enum(['tcp', 'udp']).nullable(),
  /** Why that transport: set by rtsp_transport, the automatic first try, remembered, or what the camera refused. */
  rtsp_transport_reason: z.string().nullable(),
  /** The node that records the camera. */
  node: z.string(),
  /** Base URL of that node for this caller (public through the Ingress, else internal); null = this node. */
  url: z.string().nullable(),
});

export const cameraListRoutes: FastifyPluginAsyncZod<CameraListRouteOptions> = async (app, opts) => {
  app.get(
    '/api/cameras',
    {
      schema: { response: { 200: z.array(cameraEntry), 401: errorResponse, 403: errorResponse } },
      onRequest: async (req) => {
        opts.auth.require(req, 'viewer');
      },
    },
    async (req, reply) => {
      void reply.header('Cache-Control', 'no-store');
      const entries: Array<z.infer<typeof cameraEntry>> = [];
      for (const cam of [...opts.cameras.list()].sort((a, b) => a.id.localeCompare(b.id))) {
        const state = opts.cameras.state(cam.id);
        if (state === undefined) continue; // removed between list() and now
        const init = opts.cameras.liveHub(cam.id)?.init;
        const codecs = init?.tracks.map((t) => t.codec).filter((c) => c !== '') ?? [];
        const ingest = opts.cameras.ingest(cam.id);
        entries.push({
          id: cam.id,
          state,
          codec: codecs.length > 0 ? codecs.join(',') : null,
          width: init?.video?.width ?? null,
          height: init?.video?.height ?? null,
          ptz: cam.ptz,
          ingest: ingest?.path ?? null,
          ingest_fallback_reason: ingest?.fallbackReason ?? null,
          rtsp_transport: ingest?.rtspTransport?.transport ?? null,
          rtsp_transport_reason: ingest?.rtspTransport?.reason ?? null,
          node: opts.locator.nodeName,
          url: null,
        });
      }
      for (const remote of await opts.locator.remoteCameras()) {
        if (entries.some((e) => e.id === remote.id)) continue; // the old side of a handover lists it as its own until it stops
        entries.push({
          id: remote.id,
          state: remote.recording ? 'recording' : 'stalled',
          codec: null,
          width: null,
          height: null,
          ptz: remote.ptz,
          ingest: null,
          ingest_fallback_reason: null,
          rtsp_transport: null,
          rtsp_transport_reason: null,
          node: remote.node,
          url: ownerBaseUrl({ kind: 'remote', node: remote.node, url: remote.url, publicUrl: remote.publicUrl }, req.headers),
        });
      }
      return entries.sort((a, b) => a.id.localeCompare(b.id));
    },
  );
};
