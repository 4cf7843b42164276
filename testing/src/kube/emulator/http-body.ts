// Reads a request body and decodes it by Content-Type: JSON, YAML, Kubernetes protobuf, and the four patch types.
import type { IncomingMessage } from 'node:http';
import yaml from 'js-yaml';
import type { PatchType } from './object-api.js';
import { decodeProtobufObject } from './protobuf-decoding.js';
import { badRequest, KubeError, unsupportedMediaType } from './status-errors.js';

const MAX_BODY = 3 * 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new KubeError(413, 'BadRequest', 'Request entity too large: limit is 3145728');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? 'application/json').split(';')[0]?.trim().toLowerCase() ?? 'application/json';
}

/** The body of a create or update: JSON, YAML or protobuf (what helm's typed clients send). */
export function decodeObjectBody(req: IncomingMessage, raw: Buffer): unknown {
  const type = mediaType(req);
  if (raw.length === 0) throw badRequest('the body of the request was empty');
  switch (type) {
    case 'application/json':
      return parseJson(raw);
    case 'application/yaml':
      return parseYaml(raw);
    case 'application/vnd.kubernetes.protobuf':
      return decodeProtobufObject(raw);
    default:
      throw unsupportedMediaType(type);
  }
}

/** The patch type a PATCH's Content-Type names, and its decoded body. */
export function decodePatchBody(req: IncomingMessage, raw: Buffer): { patchType: PatchType; patch: unknown } {
  const type = mediaType(req);
  switch (type) {
    case 'application/merge-patch+json': return { patchType: 'merge', patch: parseJson(raw) };
    case 'application/json-patch+json': return { patchType: 'json', patch: parseJson(raw) };
    case 'application/strategic-merge-patch+json': return { patchType: 'strategic', patch: parseJson(raw) };
    case 'application/apply-patch+yaml': return { patchType: 'apply', patch: parseYaml(raw) };
    default:
      throw new KubeError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`);
  }
}

/** Bodies that may be absent (DELETE options). */
export function decodeOptionalBody(req: IncomingMessage, raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  return decodeObjectBody(req, raw);
}

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw badRequest(`error decoding request body: ${(err as Error).message}`);
  }
}

function parseYaml(raw: Buffer): unknown {
  try {
    return yaml.load(raw.toString('utf8'));
  } catch (err) {
    throw badRequest(`error decoding YAML: ${(err as Error).message}`);
  }
}
