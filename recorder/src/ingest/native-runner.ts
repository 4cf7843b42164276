// Native RTSP ingest inside the recorder: one RTSP session per run, RTP depacketized and muxed into the hub's fMP4.
import type { Logger } from 'pino';
import type { Camera } from '../cameras/camera.js';
import type { AudioAccessUnit, VideoAccessUnit } from '../rtp/access-unit.js';
import { createDepacketizer } from '../rtp/depacketizer-factory.js';
import { UnsupportedPayloadError, type AnyDepacketizer, type AudioDepacketizer, type VideoDepacketizer } from '../rtp/depacketizer.js';
import { RtpClock } from '../rtp/rtp-clock.js';
import { refusesTransport, RtspAuthError, RtspClosedError, RtspSession, RtspStatusError, type ReadScheduler } from '../rtsp/rtsp-session.js';
import { redactText } from '../util/redact.js';
import { CaptureTimeline } from './capture-timeline.js';
import type { IngestRun, IngestRunEnd, IngestRunHandlers, IngestRunner } from './ingest-run.js';
import { NativeStreamAssembler } from './native-stream-assembler.js';
import { planTracks, type PlannedTrack } from './native-track-plan.js';
import { ReceiverReports } from './receiver-reports.js';
import { answersWithoutStream } from './restart-policy.js';
import type { RtspTransportChoice } from './rtsp-transport-choice.js';
import { SsrcFilter } from './ssrc-filter.js';

/** How often, at most, packets are reported to the supervisor's stall watchdog (it counts in seconds). */
const ACTIVITY_REPORT_MS = 250;
/** Over automatic UDP, no RTP this long after PLAY means the packets cannot reach us (a firewall, NAT): TCP is tried. */
const UDP_FIRST_RTP_MS = 4_000;
/** A BYE (or the camera hanging up) after at least this much playing is a stream that ended (VLC's loop): reconnect at once, not after a delay. */
const BYE_RECONNECT_AT_ONCE_AFTER_MS = 1_000;

export interface NativeRunnerOptions {
  camera: Camera;
  log: Logger;
  /** The recorder's one read scheduler (shared read buffer, reads coalesced per tick). */
  readScheduler: ReadScheduler;
  /** Connect and request timeout (default 5 s, as ffmpeg's `-timeout 5000000`). */
  timeoutMs?: number;
  /** How often receiver reports go to the camera (default 5 s). */
  receiverReportMs?: number;
  /** The camera's transport choice, shared with its ffmpeg runner. */
  transport: RtspTransportChoice;
  /**
   * Packets that arrive without making a whole picture for this long (stall_seconds; default 10 s) end the session:
   * a camera sending only what cannot be decoded must be reconnected, with a log line that says so.
   */
  stallMs?: number;
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
    let udpWatch: NodeJS.Timeout | undefined;
    let pictureWatch: NodeJS.Timeout | undefined;
    let over = false;
    let settle!: (end: IngestRunEnd) => void;
    const ended = new Promise<IngestRunEnd>((resolve) => {
      settle = (end) => {
        over = true;
        clearInterval(reportTimer);
        clearTimeout(udpWatch);
        clearInterval(pictureWatch);
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

    const choice = this.#opts.transport;
    let playedAt: number | undefined;
    const run = async (): Promise<void> => {
      const tracks: AnyDepacketizer[] = [];
      const filters: SsrcFilter[] = [];
      const clocks: RtpClock[] = [];
      // Made once the tracks are known; RTCP arriving before that has nothing to report about.
      const rtcp: { reports?: ReceiverReports } = {};
      let lastActivityAt = 0;
      let rtpSeen = false;
      let lastPacketAt = 0;
      let lastPictureAt = 0;
      let foreignLogged = false;
      session = await RtspSession.open({
        url: camera.source,
        readScheduler: this.#opts.readScheduler,
        // The short tick while nobody watches, too, until the audio has been placed against the video by arrival times.
        idle: () => assembler.settled && !handlers.watchedLive(),
        transport: choice.current,
        fallbackTransport: choice.automatic,
        timeoutMs: this.#opts.timeoutMs ?? 5_000,
        log,
        onRtp: (index, buffer, start, end) => {
          const now = Date.now();
          // The stall watchdog counts in seconds: telling it every packet (thousands a second) would only cost.
          if (now - lastActivityAt >= ACTIVITY_REPORT_MS) {
            lastActivityAt = now;
            handlers.onActivity();
          }
          lastPacketAt = now;
          if (!rtpSeen) {
            rtpSeen = true;
            clearTimeout(udpWatch);
            if (session !== undefined) choice.worked(session.transport);
          }
          const filter = filters[index];
          if (filter !== undefined && !filter.accept(buffer, start, end, now)) {
            if (!foreignLogged) {
              foreignLogged = true;
              log.warn({ track: index }, 'RTP from a second source (another SSRC) on a track: ignored, the first source is kept');
            }
            return;
          }
          tracks[index]?.push(buffer, now, start, end);
        },
        onRtcp: (index, packet) => {
          if (rtcp.reports?.onRtcp(index, packet) !== true || index !== 0) return;
          const reason = 'the camera ended the stream (RTCP BYE)';
          log.info({ reason }, 'camera sent RTCP BYE; reconnecting');
          end({ detail: { reason }, retryAtOnce: playedAt !== undefined && Date.now() - playedAt >= BYE_RECONNECT_AT_ONCE_AFTER_MS });
        },
        onClose: (err) => {
          // A camera that hangs up after streaming a while ended its stream (VLC closes the connection right after the
          // BYE that ends a loop, and either may arrive first): reconnect at once, as after a BYE.
          const ended = err instanceof RtspClosedError && playedAt !== undefined && Date.now() - playedAt >= BYE_RECONNECT_AT_ONCE_AFTER_MS;
          settle(pendingEnd ?? { detail: err === undefined ? {} : { err: redactText(err.message) }, ...(ended ? { retryAtOnce: true } : {}) });
        },
      });
      if (stopRequested || pendingEnd !== undefined) return end(pendingEnd ?? { detail: {} });
      const plan = planTracks(session.sdp, camera.audio);
      if (!plan.ok) return end({ detail: { reason: plan.unsupported }, unsupported: plan.unsupported });
      if (plan.audioSkipped !== undefined && !this.#audioSkipLogged) {
        this.#audioSkipLogged = true;
        log.warn({ audio: plan.audioSkipped }, 'camera audio cannot be stored in MP4; recording video only (set audio: transcode to keep it)');
      }
      const video = this.#depacketizer(plan.video, (au) => {
        lastPictureAt = Date.now();
        this.#onVideo(au as VideoAccessUnit, video as VideoDepacketizer, clocks[0] as RtpClock, timeline, assembler);
      });
      const audio = plan.audio === undefined ? undefined : this.#depacketizer(plan.audio, (au) => assembler.pushAudio((au as AudioAccessUnit).data, (clocks[1] as RtpClock).extend(au.rtpTimestamp)));
      tracks.push(video);
      filters.push(new SsrcFilter());
      clocks.push(new RtpClock(video.clockRate));
      if (audio !== undefined) {
        tracks.push(audio);
        filters.push(new SsrcFilter());
        clocks.push(new RtpClock(audio.clockRate));
        assembler.setAudio({ config: (audio as AudioDepacketizer).config, clockRate: audio.clockRate });
      }
      const reports = new ReceiverReports(tracks.map((depacketizer, i) => ({ depacketizer, clock: clocks[i] as RtpClock })));
      rtcp.reports = reports;
      const asked = session.transport;
      try {
        await session.setup([plan.video.media.index, ...(plan.audio === undefined ? [] : [plan.audio.media.index])]);
      } finally {
        const refusal = session.transportRefusal;
        if (refusal !== undefined) {
          choice.refused(asked, refusal);
          log.info({ refused: asked, refusal, transport: session.transport }, `the camera refused RTP over ${asked.toUpperCase()} (${refusal}); using ${session.transport.toUpperCase()}`);
        }
      }
      await session.play();
      playedAt = Date.now();
      lastPictureAt = playedAt;
      const stallMs = this.#opts.stallMs ?? 10_000;
      pictureWatch = setInterval(() => {
        const now = Date.now();
        // A camera that sends nothing at all is the supervisor's stall; this is one that sends what makes no picture.
        if (now - lastPictureAt < stallMs || now - lastPacketAt > 1_000) return;
        const stats = video.stats;
        const why = `no whole picture for ${Math.round((now - lastPictureAt) / 1000)} s although the camera sends RTP (malformed packets ${stats.malformedPackets}, lost ${stats.lostPackets}, dropped pictures ${stats.droppedUnits}, from another source ${filters[0]?.foreign ?? 0})`;
        log.warn({ reason: why }, 'the camera sends nothing that can be recorded; reconnecting');
        end({ detail: { reason: why } });
      }, 1_000);
      const live = session;
      if (over) return;
      if (live.transport === 'udp' && choice.automatic && !rtpSeen) {
        udpWatch = setTimeout(() => {
          const why = `no RTP over UDP within ${UDP_FIRST_RTP_MS / 1000} s: a firewall or NAT in the way?`;
          const atOnce = choice.refused('udp', why);
          log.warn({ transport: choice.current }, `${why} Trying ${choice.current.toUpperCase()}`);
          end({ detail: { reason: why }, retryAtOnce: atOnce });
        }, UDP_FIRST_RTP_MS);
      }
      reportTimer = setInterval(() => {
        for (const { index, packet } of reports.build()) live.sendRtcp(index, packet);
      }, this.#opts.receiverReportMs ?? 5_000);
    };

    run().catch((err: unknown) => {
      if (err instanceof UnsupportedPayloadError) return end({ detail: { reason: err.payload }, unsupported: err.payload });
      const message = redactText(err instanceof Error ? err.message : String(err));
      let why: IngestRunEnd = err instanceof RtspAuthError ? { detail: { err: message }, authFailed: true } : { detail: { err: message } };
      if (err instanceof RtspStatusError && err.method === 'DESCRIBE' && answersWithoutStream(err.status)) why = { ...why, noStreamYet: `${err.status} ${err.reason}`.trim() };
      if (err instanceof RtspStatusError && err.method === 'SETUP' && refusesTransport(err.status) && session !== undefined) {
        // Refused with the other transport too (or on a connection the camera closed after the first refusal).
        why = { ...why, retryAtOnce: choice.refused(session.transport, `${err.status} ${err.reason}`.trim()) };
      }
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
