// Maps everything a route throws to the error body; validation failures name the offending field.
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { CameraNotFoundError } from '../cameras/camera-errors.js';
import { formatPath } from '../config/load.js';
import { redactText } from '../util/redact.js';
import { ApiError, codeForStatus, errorBody, ERROR_CATALOGUE } from './error-catalogue.js';

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | ApiError | CameraNotFoundError, req, reply) => {
    if (err instanceof CameraNotFoundError) {
      return reply.status(404).send(errorBody('camera_not_found', err.message));
    }
    if (err instanceof ApiError) {
      if (err.code === 'unauthorized') void reply.header('WWW-Authenticate', 'Bearer realm="vigil"');
      return reply.status(err.status).send(errorBody(err.code, err.message, err.details));
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const where = err.validationContext ?? 'request';
      const issues = err.validation.map((v) => {
        const path = v.instancePath.split('/').filter((p) => p !== '');
        const keys = (v.params as { keys?: unknown }).keys;
        if (v.keyword === 'unrecognized_keys' && Array.isArray(keys)) {
          return { field: formatPath([...path, keys.join(',')]), message: 'is not an accepted field' };
        }
        return { field: formatPath(path), message: v.message ?? 'is not valid' };
      });
      const unknown = err.validation.some((v) => v.keyword === 'unrecognized_keys');
      const first = issues[0];
      const message = first === undefined ? `invalid ${where}` : `${where} ${first.field}: ${first.message}`;
      return reply.status(400).send(errorBody(unknown ? 'unknown_field' : 'bad_request', message, { in: where, issues }));
    }
    const status = err.statusCode ?? 500;
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return reply.status(413).send(errorBody('payload_too_large', ERROR_CATALOGUE.payload_too_large.message));
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return reply.status(415).send(errorBody('unsupported_media_type', ERROR_CATALOGUE.unsupported_media_type.message));
    if (status >= 400 && status < 500) {
      // The status follows the code, so every answer's code is in the catalogue with that very status.
      const code = codeForStatus(status);
      return reply.status(ERROR_CATALOGUE[code].status).send(errorBody(code, redactText(err.message)));
    }
    req.log.error({ err: redactText(String(err.stack ?? err)) }, 'request failed');
    return reply.status(500).send(errorBody('internal_error', ERROR_CATALOGUE.internal_error.message));
  });
  app.setNotFoundHandler((req, reply) => {
    void reply.status(404).send(errorBody('not_found', `no route ${req.method} ${req.url.split('?')[0] ?? ''}`));
  });
}
