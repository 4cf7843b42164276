// Test support: the real fastify app (buildApp) over a real CameraRegistry, with tokens and a log that is kept for inspection.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { Writable } from 'node:stream';
import { cameraFromConfig, type Camera } from '../../src/cameras/camera.js';
import { CameraRegistry } from '../../src/cameras/registry.js';
import { cameraSchema, configSchema } from '../../src/config/schema.js';
import { BODY_LIMIT_BYTES } from '../../src/http/app.js';
import { TokenAuthenticator } from '../../src/http/auth.js';
import { installErrorHandling } from '../../src/http/error-handler.js';
import { ptzRoutes, type PtzControl } from '../../src/http/routes/ptz.js';
import { snapshotRoutes, type SnapshotSource } from '../../src/http/routes/snapshot.js';
import { createLogger, type Logger } from '../../src/log/logger.js';
import { sha256 } from './recorder-process.js';

export const TOKENS = { viewer: 'viewer-token-6', operator: 'operator-token-6' } as const;

export interface ApiApp {
  app: FastifyInstance;
  registry: CameraRegistry;
  log: Logger;
  /** Every log line written so far. */
  logText(): string;
}

/** A camera as the config file would give it (validated by the real schema). */
export function configCamera(entry: Record<string, unknown>): Camera {
  return cameraFromConfig(cameraSchema.parse(entry), configSchema.parse({}));
}

export function testLogger(): { log: Logger; text: () => string } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  // No literal secrets: what is logged must be clean by itself, not scrubbed afterwards.
  return { log: createLogger({ level: 'debug', destination }), text: () => lines.join('') };
}

/**
 * The snapshot and PTZ routes as buildApp mounts them (same validator, serializer, error handler, auth), without the
 * routes of other services: their dependencies are none of these tests' business.
 */
export async function buildApiApp(cameras: Camera[], services: (registry: CameraRegistry, log: Logger) => { snapshots: SnapshotSource; ptz: PtzControl }): Promise<ApiApp> {
  const { log, text } = testLogger();
  const registry = new CameraRegistry();
  registry.publish('file', cameras);
  const auth = new TokenAuthenticator(
    [
      { name: 'wall', role: 'viewer', sha256: sha256(TOKENS.viewer) },
      { name: 'ops', role: 'operator', sha256: sha256(TOKENS.operator) },
    ],
    false,
  );
  const deps = services(registry, log);
  const app = Fastify({ loggerInstance: log.child({ component: 'http' }, { level: 'warn' }) as FastifyBaseLogger, bodyLimit: BODY_LIMIT_BYTES });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandling(app);
  await app.register(snapshotRoutes, { auth, snapshots: deps.snapshots });
  await app.register(ptzRoutes, { auth, ptz: deps.ptz });
  return { app, registry, log, logText: text };
}
