// Ingest through one ffmpeg per camera: spawns it (reading RTSP through the credential relay), parses its fMP4 output, notices audio MP4 cannot carry.
import type { Logger } from 'pino';
import type { Camera } from '../cameras/camera.js';
import { Fmp4StreamParser } from '../media/fmp4-stream-parser.js';
import { ManagedChild } from '../process/managed-child.js';
import type { RelayLease, RtspRelay } from '../rtsp/rtsp-relay.js';
import { refusesTransport } from '../rtsp/rtsp-session.js';
import { redactText } from '../util/redact.js';
import { buildIngestArgs, isUnsupportedAudioError, sourceKind } from './ffmpeg-args.js';
import type { IngestRun, IngestRunEnd, IngestRunHandlers, IngestRunner } from './ingest-run.js';
import { answersWithoutStream } from './restart-policy.js';
import type { RtspTransport, RtspTransportChoice } from './rtsp-transport-choice.js';

export type { RtspRelay } from '../rtsp/rtsp-relay.js';

export interface FfmpegRunnerOptions {
  camera: Camera;
  log: Logger;
  ffmpegPath: string;
  fragmentMicros?: number;
  /** Where ffmpeg reads an RTSP camera from, so that its command line carries no password. */
  relay?: RtspRelay;
  /** The camera's transport choice, shared with its native runner. */
  transport?: RtspTransportChoice;
}

/** What the relay saw of one run's RTSP exchange with the camera. */
interface Exchange {
  /** The last DESCRIBE answer when it was one of a server without the stream yet (restart-policy.ts). */
  noStream?: string;
  refused?: { transport: RtspTransport; why: string };
  setUp?: RtspTransport;
  played: boolean;
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
    const choice = this.#opts.transport;
    let retryAtOnce = false;
    let quiet = false;
    let media = false;
    let child: ManagedChild | undefined;
    let lease: RelayLease | undefined;
    let stopRequested = false;
    const exchange: Exchange = { played: false };
    const parser = new Fmp4StreamParser({
      onInit: (init) => handlers.onInit(init),
      onFragment: (fragment) => handlers.onFragment(fragment),
      onError: (err) => {
        log.error({ err: err.message }, 'unparseable ffmpeg output; restarting ingest');
        void child?.stop();
      },
    });

    const spawnFfmpeg = async (): Promise<IngestRunEnd> => {
      let rtsp: { inputUrl: string; transport: RtspTransport } | undefined;
      const relay = this.#opts.relay;
      if (sourceKind(camera.source) === 'rtsp' && relay !== undefined) {
        lease = await relay.lease(camera.source, {
          describeAnswered: (status, reason) => {
            exchange.noStream = answersWithoutStream(status) ? `${status} ${reason}`.trim() : undefined;
          },
          setupAnswered: (transport, status, reason) => {
            if (status >= 200 && status < 300) exchange.setUp = transport;
            else if (refusesTransport(status)) exchange.refused ??= { transport, why: `${status} ${reason}`.trim() };
          },
          playAnswered: (status) => {
            exchange.played ||= status >= 200 && status < 300;
          },
        });
        rtsp = { inputUrl: lease.url, transport: choice?.current ?? 'tcp' };
      }
      if (stopRequested) return { detail: {} };
      const relayUrl = lease?.url;
      // ffmpeg names its input in its messages: the relay's token is no secret worth showing either.
      const clean = (line: string): string => redactText(relayUrl === undefined ? line : line.split(relayUrl).join(redactText(camera.source)));
      const args = buildIngestArgs(camera, { fragmentMicros: this.#opts.fragmentMicros ?? 200_000, audioAllowed: this.#audioAllowed, ...(rtsp === undefined ? {} : { rtsp }) });
      const proc = new ManagedChild({
        command: this.#opts.ffmpegPath,
        args,
        onStdout: (chunk) => {
          handlers.onActivity();
          if (!media) {
            media = true;
            if (choice !== undefined && rtsp !== undefined) choice.worked(exchange.setUp ?? rtsp.transport);
          }
          parser.push(chunk);
        },
        onStderrLine: (line) => {
          if (this.#audioAllowed && camera.audio === 'auto' && isUnsupportedAudioError(line)) {
            this.#audioAllowed = false;
            retryAtOnce = true;
            log.warn('camera audio cannot be stored in MP4; recording video only (set audio: transcode to keep it)');
          }
          if (quiet) log.debug({ ffmpeg: clean(line) }, 'ffmpeg');
          else log.warn({ ffmpeg: clean(line) }, 'ffmpeg');
        },
      });
      child = proc;
      log.info({ source: redactText(camera.source), pid: proc.pid, ingest: 'ffmpeg', ...(rtsp === undefined ? {} : { rtsp_transport: rtsp.transport }) }, 'ingest started');
      const exit = await proc.exited;
      parser.reset();
      // ffmpeg ends with 0 when the camera ended the stream (an RTCP BYE from every track, as VLC sends per loop of a
      // file): reconnect at once, as native ingest does, rather than after a restart delay.
      const streamEnded = exit.code === 0 && media && !stopRequested && rtsp !== undefined;
      if (streamEnded) log.info('the camera ended the stream (ffmpeg reached its end, e.g. RTCP BYE); reconnecting');
      const noStreamYet = media ? undefined : exchange.noStream;
      return {
        detail: { code: exit.code, signal: exit.signal },
        retryAtOnce: retryAtOnce || streamEnded || this.#transportLesson(exchange, media, rtsp?.transport),
        ...(noStreamYet === undefined ? {} : { noStreamYet }),
      };
    };

    const ended = spawnFfmpeg()
      .catch((err: unknown): IngestRunEnd => ({ detail: { err: redactText(err instanceof Error ? err.message : String(err)) } }))
      .finally(() => lease?.release());
    return {
      get pid() {
        return child?.pid;
      },
      ended,
      stop: async () => {
        // What ffmpeg says while it is being stopped is expected, not a warning.
        quiet = true;
        stopRequested = true;
        await child?.stop();
        await ended;
      },
    };
  }

  /**
   * What a run that ended teaches the transport choice, as native ingest learns it: a SETUP refused for its transport,
   * or UDP set up and played without a byte of media (ffmpeg gives up after its 5 s timeout). True: try again at once.
   */
  #transportLesson(exchange: Exchange, media: boolean, asked: RtspTransport | undefined): boolean {
    const choice = this.#opts.transport;
    if (choice === undefined || asked === undefined || !choice.automatic) return false;
    if (exchange.refused !== undefined && exchange.setUp === undefined) {
      this.#opts.log.info({ refused: exchange.refused.transport, refusal: exchange.refused.why }, `the camera refused RTP over ${exchange.refused.transport.toUpperCase()} (${exchange.refused.why}); trying the other transport`);
      return choice.refused(exchange.refused.transport, exchange.refused.why);
    }
    if (exchange.setUp === 'udp' && exchange.played && !media) {
      const why = 'no RTP over UDP before ffmpeg gave up: a firewall or NAT in the way?';
      this.#opts.log.warn(`${why} Trying TCP`);
      return choice.refused('udp', why);
    }
    return false;
  }
}
