// The OpenAPI 3.1 document, generated from the route schemas by @fastify/swagger and served at /api/openapi.json.
import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

/**
 * Routes that are not part of the API (the bundled page, the CORS preflight answer for every path); the WebSocket
 * endpoint is no fastify route at all.
 */
export const NOT_IN_OPENAPI = ['/', '/archive', '/assets/:name', '/*'] as const;

/** Must run before any route is registered: swagger collects routes as they are added. */
export async function installOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Vigil recorder API', version, description: 'See docs/api.md for the rules behind each endpoint and the error catalogue.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
    transform: (doc) => {
      if ((NOT_IN_OPENAPI as readonly string[]).includes(doc.url)) return { schema: { hide: true }, url: doc.url };
      return jsonSchemaTransform(doc);
    },
  });
  app.get('/api/openapi.json', async (_req, reply) => {
    void reply.header('Cache-Control', 'no-cache');
    return app.swagger();
  });
}
