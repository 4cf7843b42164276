// Native RTSP ingest inside the recorder: one RTSP session per run, RTP depacketized and muxed into the hub's fMP4.
import type { Logger } from 'pino';
import type { Camera } from '../cameras/camera.js';
import type { AudioAccessUnit, VideoAccessUnit } from '../rtp/access-unit.js';
import { createDepacketizer } from '../rtp/depacketizer-factory.js';
import { UnsupportedPayloadError, type AnyDepacketizer, type AudioDepacketizer, type VideoDepacketizer } from '../rtp/depacketizer.js';
import { RtpClock } from '../rtp/rtp-clock.js';
import { RtspAuthError, RtspSession, type ReadScheduler } from '../rtsp/rtsp-session.js';
import { redactText } from '../util/redact.js';
import { CaptureTimeline } from './capture-timeline.js';
import type { IngestRun, IngestRunEnd, IngestRunHandlers, IngestRunner } from './ingest-run.js';
import { NativeStreamAssembler } from './native-stream-assembler.js';
import { planTracks, type PlannedTrack } from './native-track-plan.js';
import { ReceiverReports } from './receiver-reports.js';

/** How often, at most, packets are reported to the supervisor's stall watchdog (it counts in seconds). */
const ACTIVITY_REPORT_MS = 250;

export interface NativeRunnerOptions {
  camera: Camera;
  log: Logger;
  /** The recorder's one read scheduler (shared read buffer, reads coalesced per tick). */
  readScheduler: ReadScheduler;
  /** Connect and request timeout (default 5 s, as ffmpeg's `-timeout 5000000`). */
  timeoutMs?: number;
  /** How often receiver reports go to the camera (default 5 s). */
  receiverReportMs?: number;
}

export class NativeRunner implements IngestRunner {
  readonly path = 'native' as const;
  readonly #opts: NativeRunnerOptions;
  #audioSkipLogged = false;
  #clockStepLogged = false;
  #rtpStepLogged = false;
  #reorderLogged = false;

  constructor(opts: NativeRunnerOptions) {
    this.#opts = opts;
  }

  start(handlers: IngestRunHandlers): IngestRun {
    const { camera, log } = this.#opts;
    let session: RtspSession | undefined;
    let stopRequested = false;
    let reportTimer: NodeJS.Timeout | undefined;
    let over = false;
    let settle!: (end: IngestRunEnd) => void;
    const ended = new Promise<IngestRunEnd>((resolve) => {
      settle = (end) => {
        over = true;
        clearInterval(reportTimer);
        resolve(end);
      };
    });
    let pendingEnd: IngestRunEnd | undefined;
    /** Closes the session; the run ends once it is closed, with the first reason given. */
    const end = (why: IngestRunEnd): void => {
      pendingEnd ??= why;
      if (session === undefined) return;
      void session.close().finally(() => settle(pendingEnd ?? why));
    };

    const assembler = new NativeStreamAssembler(
      { onInit: handlers.onInit, onFragment: handlers.onFragment },
      { audio: undefined, mayHoldPictures: () => !handlers.watchedLive() },
    );
    log.info({ source: redactText(camera.source), ingest: 'native' }, 'ingest started');
    const timeline = new CaptureTimeline();

    const run = async (): Promise<void> => {
      const tracks: AnyDepacketizer[] = [];
      const clocks: RtpClock[] = [];
      // Made once the tracks are known; RTCP arriving before that has nothing to report about.
      const rtcp: { reports?: ReceiverReports } = {};
      let lastActivityAt = 0;
      session = await RtspSession.open({
        url: camera.source,
        readScheduler: this.#opts.readScheduler,
        // The short tick while nobody watches, too, until the audio has been placed against the video by arrival times.
        idle: () => assembler.settled && !handlers.watchedLive(),
        transport: camera.rtspTransport,
        timeoutMs: this.#opts.timeoutMs ?? 5_000,
        log,
        onRtp: (index, buffer, start, end) => {
          const now = Date.now();
          // The stall watchdog counts in seconds: telling it every packet (thousands a second) would only cost.
          if (now - lastActivityAt >= ACTIVITY_REPORT_MS) {
            lastActivityAt = now;
            handlers.onActivity();
          }
          tracks[index]?.push(buffer, now, start, end);
        },
        onRtcp: (index, packet) => rtcp.reports?.onRtcp(index, packet),
        onClose: (err) => settle(pendingEnd ?? { detail: err === undefined ? {} : { err: redactText(err.message) } }),
      });
      if (stopRequested || pendingEnd !== undefined) return end(pendingEnd ?? { detail: {} });
      const plan = planTracks(session.sdp, camera.audio);
      if (!plan.ok) return end({ detail: { reason: plan.unsupported }, unsupported: plan.unsupported });
      if (plan.audioSkipped !== undefined && !this.#audioSkipLogged) {
        this.#audioSkipLogged = true;
        log.warn({ audio: plan.audioSkipped }, 'camera audio cannot be stored in MP4; recording video only (set audio: transcode to keep it)');
      }
      const video = this.#depacketizer(plan.video, (au) => this.#onVideo(au as VideoAccessUnit, video as VideoDepacketizer, clocks[0] as RtpClock, timeline, assembler));
      const audio = plan.audio === undefined ? undefined : this.#depacketizer(plan.audio, (au) => assembler.pushAudio((au as AudioAccessUnit).data, (clocks[1] as RtpClock).extend(au.rtpTimestamp)));
      tracks.push(video);
      clocks.push(new RtpClock(video.clockRate));
      if (audio !== undefined) {
        tracks.push(audio);
        clocks.push(new RtpClock(audio.clockRate));
        assembler.setAudio({ config: (audio as AudioDepacketizer).config, clockRate: audio.clockRate });
      }
      const reports = new ReceiverReports(tracks.map((depacketizer, i) => ({ depacketizer, clock: clocks[i] as RtpClock })));
      rtcp.reports = reports;
      await session.setup([plan.video.media.index, ...(plan.audio === undefined ? [] : [plan.audio.media.index])]);
      await session.play();
      const live = session;
      if (over) return;
      reportTimer = setInterval(() => {
        for (const { index, packet } of reports.build()) live.sendRtcp(index, packet);
      }, this.#opts.receiverReportMs ?? 5_000);
    };

    run().catch((err: unknown) => {
      if (err instanceof UnsupportedPayloadError) return end({ detail: { reason: err.payload }, unsupported: err.payload });
      const message = redactText(err instanceof Error ? err.message : String(err));
      const why: IngestRunEnd = err instanceof RtspAuthError ? { detail: { err: message }, authFailed: true } : { detail: { err: message } };
      if (err instanceof RtspAuthError) log.error({ source: redactText(camera.source) }, 'the camera refused the credentials; check the user and password in source');
      if (session === undefined) settle(why);
      else end(why);
    });

    return {
      pid: undefined,
      ended,
      stop: async () => {
        stopRequested = true;
        end({ detail: {} });
        await ended;
      },
      sendHeld: () => assembler.sendHeld(),
    };
  }

  #depacketizer(track: PlannedTrack, onUnit: (au: VideoAccessUnit | AudioAccessUnit) => void): AnyDepacketizer {
    return createDepacketizer(track.encoding, track.clockRate, track.fmtp, onUnit);
  }

  #onVideo(au: VideoAccessUnit, depacketizer: VideoDepacketizer, clock: RtpClock, timeline: CaptureTimeline, assembler: NativeStreamAssembler): void {
    const ticks = clock.extend(au.rtpTimestamp);
    const named = timeline.timeOf(clock.wallClockMs(ticks), au.receivedAt);
    if (timeline.steps > 0 && !this.#clockStepLogged) {
      this.#clockStepLogged = true;
      this.#opts.log.warn('the camera clock stepped by more than 2 s; segment times follow it from here');
    }
    assembler.setParameterSets(depacketizer.parameterSets);
    assembler.pushVideo(au, ticks, named);
    const events = assembler.videoEvents;
    if (events.clockSteps > 0 && !this.#rtpStepLogged) {
      this.#rtpStepLogged = true;
      this.#opts.log.warn('the camera clock stepped (its RTP timestamps jumped); the recording carries on without a gap');
    }
    if (events.reorderGrowths > 0 && !this.#reorderLogged) {
      this.#reorderLogged = true;
      this.#opts.log.info({ reorder_depth: events.reorderDepth }, 'the camera reorders more pictures than it announced; decode times adjusted');
    }
  }
}
