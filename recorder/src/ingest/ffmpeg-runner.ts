// Ingest through one ffmpeg per camera: spawns it, parses its fMP4 output, notices audio MP4 cannot carry.
import type { Logger } from 'pino';
import type { Camera } from '../cameras/camera.js';
import { Fmp4StreamParser } from '../media/fmp4-stream-parser.js';
import { ManagedChild } from '../process/managed-child.js';
import { redactText } from '../util/redact.js';
import { buildIngestArgs, isUnsupportedAudioError } from './ffmpeg-args.js';
import type { IngestRun, IngestRunEnd, IngestRunHandlers, IngestRunner } from './ingest-run.js';

export interface FfmpegRunnerOptions {
  camera: Camera;
  log: Logger;
  ffmpegPath: string;
  fragmentMicros?: number;
}

export class FfmpegRunner implements IngestRunner {
  readonly path = 'ffmpeg' as const;
  readonly #opts: FfmpegRunnerOptions;
  #audioAllowed = true;

  constructor(opts: FfmpegRunnerOptions) {
    this.#opts = opts;
  }

  start(handlers: IngestRunHandlers): IngestRun {
    const { camera, log } = this.#opts;
    let retryAtOnce = false;
    let quiet = false;
    const parser = new Fmp4StreamParser({
      onInit: (init) => handlers.onInit(init),
      onFragment: (fragment) => handlers.onFragment(fragment),
      onError: (err) => {
        log.error({ err: err.message }, 'unparseable ffmpeg output; restarting ingest');
        void child.stop();
      },
    });
    const args = buildIngestArgs(camera, { fragmentMicros: this.#opts.fragmentMicros ?? 200_000, audioAllowed: this.#audioAllowed });
    const child = new ManagedChild({
      command: this.#opts.ffmpegPath,
      args,
      onStdout: (chunk) => {
        handlers.onActivity();
        parser.push(chunk);
      },
      onStderrLine: (line) => {
        if (this.#audioAllowed && camera.audio === 'auto' && isUnsupportedAudioError(line)) {
          this.#audioAllowed = false;
          retryAtOnce = true;
          log.warn('camera audio cannot be stored in MP4; recording video only (set audio: transcode to keep it)');
        }
        if (quiet) log.debug({ ffmpeg: redactText(line) }, 'ffmpeg');
        else log.warn({ ffmpeg: redactText(line) }, 'ffmpeg');
      },
    });
    log.info({ source: redactText(camera.source), pid: child.pid, ingest: 'ffmpeg' }, 'ingest started');
    const ended = child.exited.then((exit): IngestRunEnd => {
      parser.reset();
      return { detail: { code: exit.code, signal: exit.signal }, retryAtOnce };
    });
    return {
      pid: child.pid,
      ended,
      stop: async () => {
        // What ffmpeg says while it is being stopped is expected, not a warning.
        quiet = true;
        await child.stop();
        await ended;
      },
    };
  }
}
