// Builds the fastify application (routes, validation, errors, auth); it never listens — server.ts does.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import type { TokenAuthenticator } from './auth.js';
import { installErrorHandling } from './error-handler.js';
import { archiveCurrentRoutes } from './routes/archive-current.js';
import { cameraControlRoutes } from './routes/cameras-control.js';
import { healthRoutes } from './routes/health.js';
import type { CameraControl } from './services.js';

export interface AppDeps {
  log: Logger;
  version: string;
  auth: TokenAuthenticator;
  cameras: CameraControl;
}

export const BODY_LIMIT_BYTES = 64 * 1024;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    // Request lines are info; the HTTP logger shows warnings and errors only.
    loggerInstance: deps.log.child({ component: 'http' }, { level: 'warn' }) as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    forceCloseConnections: true,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandling(app);
  await app.register(healthRoutes, { version: deps.version });
  await app.register(archiveCurrentRoutes, { auth: deps.auth, cameras: deps.cameras });
  await app.register(cameraControlRoutes, { auth: deps.auth, cameras: deps.cameras });
  return app;
}
