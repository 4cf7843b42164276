// POST /api/ptz/move and /api/ptz/stop: ONVIF pan/tilt/zoom control of a camera.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CAMERA_ID_PATTERN } from '../../config/schema.js';
import { PtzCommandError, PtzDisabledError, PtzNoCredentialsError } from '../../ptz/ptz-errors.js';
import type { TokenAuthenticator } from '../auth.js';
import { ApiError } from '../error-catalogue.js';
import { errorResponse } from '../schemas.js';

/** What the routes need from the PTZ service. */
export interface PtzControl {
  move(m: { cameraId: string; pan: number; tilt: number; zoom: number; speed?: number | undefined }): Promise<void>;
  stop(cameraId: string): Promise<void>;
}

export interface PtzRouteOptions {
  auth: TokenAuthenticator;
  ptz: PtzControl;
}

const cameraId = z.string().regex(CAMERA_ID_PATTERN, { message: `must match ${CAMERA_ID_PATTERN.source}` });
const axis = z.number({ message: 'must be a number from -1.0 to 1.0' }).min(-1, { message: 'must be from -1.0 to 1.0' }).max(1, { message: 'must be from -1.0 to 1.0' });
const moveBody = z
  .object({
    camera_id: cameraId,
    pan: axis,
    tilt: axis,
    zoom: axis,
    speed: z.number({ message: 'must be a number (clamped to 0.0 to 1.0)' }).optional(),
  })
  .strict();
const stopBody = z.object({ camera_id: cameraId }).strict();
const ok = (message: string) => z.object({ status: z.literal('ok'), message: z.literal(message) });
const errors = { 400: errorResponse, 401: errorResponse, 403: errorResponse, 404: errorResponse, 422: errorResponse, 502: errorResponse };

const camera = { from: 'body', key: 'camera_id', unknown: 'not_found' } as const;

/** Movement fields a validation failure is about; those answer 422 invalid_ptz_value, anything else 400. */
const MOVEMENT_FIELDS = new Set(['pan', 'tilt', 'zoom', 'speed']);

export const ptzRoutes: FastifyPluginAsyncZod<PtzRouteOptions> = async (app, opts) => {
  app.post(
    '/api/ptz/move',
    {
      schema: { body: moveBody, response: { 200: ok('ptz move completed'), ...errors } },
      config: { camera },
      attachValidation: true,
      onRequest: async (req) => {
        opts.auth.require(req, 'operator');
      },
    },
    async (req) => {
      if (req.validationError !== undefined) throw movementError(req.validationError) ?? req.validationError;
      const { camera_id, pan, tilt, zoom, speed } = req.body;
      try {
        await opts.ptz.move({ cameraId: camera_id, pan, tilt, zoom, speed });
      } catch (err) {
        throw toApiError(err);
      }
      return { status: 'ok' as const, message: 'ptz move completed' as const };
    },
  );
  app.post(
    '/api/ptz/stop',
    {
      schema: { body: stopBody, response: { 200: ok('ptz stop completed'), ...errors } },
      config: { camera },
      onRequest: async (req) => {
        opts.auth.require(req, 'operator');
      },
    },
    async (req) => {
      try {
        await opts.ptz.stop(req.body.camera_id);
      } catch (err) {
        throw toApiError(err);
      }
      return { status: 'ok' as const, message: 'ptz stop completed' as const };
    },
  );
};

/** A 422 naming the first movement field that failed validation; undefined when only other fields did. */
function movementError(err: Error & { validation?: unknown }): ApiError | undefined {
  const issues = Array.isArray(err.validation) ? (err.validation as Array<{ instancePath?: unknown; message?: unknown; keyword?: unknown }>) : [];
  for (const issue of issues) {
    const field = typeof issue.instancePath === 'string' ? issue.instancePath.split('/').filter((p) => p !== '')[0] : undefined;
    if (field === undefined || !MOVEMENT_FIELDS.has(field)) continue;
    const message = typeof issue.message === 'string' && issue.message !== '' ? issue.message : 'is not valid';
    return new ApiError('invalid_ptz_value', `${field}: ${message}`, { field });
  }
  return undefined;
}

function toApiError(err: unknown): unknown {
  if (err instanceof PtzDisabledError) return new ApiError('ptz_disabled', err.message);
  if (err instanceof PtzNoCredentialsError) return new ApiError('ptz_no_credentials', err.message);
  if (err instanceof PtzCommandError) return new ApiError('ptz_failed', err.message);
  return err;
}
