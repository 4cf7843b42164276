// Fetches one still from a camera with undici: login challenge answers, time and size limits, image checks.
import type { Agent, Dispatcher } from 'undici';
import { redactText } from '../util/redact.js';
import { sessionFor, type AuthSession, type Credentials } from './digest-auth.js';
import { isImageContentType, sniffImage, type ImageFormat } from './image-check.js';
import { CameraAnswerError, CameraTimeoutError } from './snapshot-errors.js';
import { parseChallenges, strongestChallenge } from './www-authenticate.js';

export const SNAPSHOT_TIMEOUT_MS = 10_000;
export const SNAPSHOT_MAX_BYTES = 10 * 1024 * 1024;

export interface Still {
  bytes: Buffer;
  contentType: string;
  format: ImageFormat;
}

export interface StillTarget {
  /** The snapshot URL without userinfo. */
  url: URL;
  credentials: Credentials | undefined;
  /** The camera's login state, reused across fetches (nonce counting); replaced when the camera challenges again. */
  auth: { session: AuthSession | undefined };
}

export interface StillFetcherOptions {
  timeoutMs?: number;
  maxBytes?: number;
}

/** Three requests at most: an up-front answer the camera finds stale, a fresh answer, and nothing more. */
const MAX_ATTEMPTS = 3;

export class StillFetcher {
  /** Made at the first still: undici is loaded only by a recorder that fetches stills from cameras. */
  #agent: Promise<{ agent: Agent; request: typeof import('undici').request }> | undefined;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;

  constructor(opts: StillFetcherOptions = {}) {
    this.#timeoutMs = opts.timeoutMs ?? SNAPSHOT_TIMEOUT_MS;
    this.#maxBytes = opts.maxBytes ?? SNAPSHOT_MAX_BYTES;
  }

  #client(): Promise<{ agent: Agent; request: typeof import('undici').request }> {
    this.#agent ??= import('undici').then(({ Agent: UndiciAgent, request }) => ({
      agent: new UndiciAgent({ keepAliveTimeout: 4_000, connect: { timeout: this.#timeoutMs } }),
      request,
    }));
    return this.#agent;
  }

  /** Resolves with the still, or rejects with CameraAnswerError / CameraTimeoutError (messages free of credentials). */
  async fetch(target: StillTarget): Promise<Still> {
    const where = redactText(target.url.href, target.credentials === undefined ? [] : [target.credentials.password]);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.#timeoutMs);
    try {
      return await this.#fetchWithAuth(target, where, controller.signal);
    } catch (err) {
      if (controller.signal.aborted) throw new CameraTimeoutError(`the camera did not answer ${where} within ${this.#timeoutMs / 1000} s`);
      if (err instanceof CameraAnswerError) throw err;
      const reason = err instanceof Error ? err.message : String(err);
      const code = (err as { code?: unknown }).code;
      const secrets = target.credentials === undefined ? [] : [target.credentials.password];
      throw new CameraAnswerError(redactText(`the camera could not be reached at ${where}: ${typeof code === 'string' ? `${code} ` : ''}${reason}`, secrets));
    } finally {
      clearTimeout(timer);
    }
  }

  /** Ends every connection, aborting a fetch still running (shutdown). */
  async close(): Promise<void> {
    if (this.#agent !== undefined) await (await this.#agent).agent.destroy();
  }

  async #fetchWithAuth(target: StillTarget, where: string, signal: AbortSignal): Promise<Still> {
    const uri = `${target.url.pathname}${target.url.search}`;
    let answeredFreshChallenge = false;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      const session = target.auth.session;
      const headers: Record<string, string> = { accept: 'image/*' };
      if (session !== undefined) headers['authorization'] = session.authorization('GET', uri);
      const { agent, request } = await this.#client();
      const res = await request(target.url, { method: 'GET', headers, signal, dispatcher: agent });
      if (res.statusCode !== 401) return await this.#readStill(res, where);
      await res.body.dump();
      const challenges = parseChallenges(headerValues(res.headers['www-authenticate']));
      const best = strongestChallenge(challenges);
      const stale = best?.scheme === 'digest' && best.params['stale']?.toLowerCase() === 'true';
      if (answeredFreshChallenge && !stale) {
        target.auth.session = undefined;
        throw new CameraAnswerError(`the camera refused the credentials for ${where} (401)`);
      }
      if (target.credentials === undefined) throw new CameraAnswerError(`the camera asks for a login at ${where}, but neither snapuri nor source carries credentials`);
      const next = best === undefined ? undefined : sessionFor(best, target.credentials);
      if (next === undefined) {
        const offered = challenges.map((c) => c.scheme).join(', ') || 'none';
        throw new CameraAnswerError(`the camera at ${where} asks for a login scheme this node cannot answer (offered: ${offered})`);
      }
      target.auth.session = next;
      answeredFreshChallenge = true;
    }
    throw new CameraAnswerError(`the camera at ${where} kept asking for a login`);
  }

  async #readStill(res: Dispatcher.ResponseData, where: string): Promise<Still> {
    if (res.statusCode < 200 || res.statusCode > 299) {
      await res.body.dump();
      throw new CameraAnswerError(`the camera answered ${res.statusCode} for ${where}`);
    }
    const contentType = headerValues(res.headers['content-type'])[0];
    if (!isImageContentType(contentType)) {
      await res.body.dump();
      throw new CameraAnswerError(`the camera answered ${where} with ${contentType ?? 'no content type'}, not an image`);
    }
    const declared = Number(headerValues(res.headers['content-length'])[0] ?? Number.NaN);
    if (declared > this.#maxBytes) {
      res.body.destroy();
      throw new CameraAnswerError(`the camera's image at ${where} is ${declared} bytes, more than the ${this.#maxBytes} allowed`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      const buf = chunk as Buffer;
      size += buf.length;
      if (size > this.#maxBytes) {
        res.body.destroy();
        throw new CameraAnswerError(`the camera's image at ${where} is larger than the ${this.#maxBytes} bytes allowed`);
      }
      chunks.push(buf);
    }
    const bytes = Buffer.concat(chunks, size);
    const format = sniffImage(bytes);
    if (format === undefined) throw new CameraAnswerError(`the camera answered ${where} with ${contentType} but the bytes are not a JPEG, PNG, GIF, WebP or BMP image`);
    return { bytes, contentType: contentType as string, format };
  }
}

function headerValues(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}
