// One UDP track through the credential relay: RTP and RTCP between the camera and ffmpeg pass through two port pairs of the relay's.
import { isIP } from 'node:net';
import { withoutSenderReports } from './relay-rtcp.js';
import { UdpTrackSockets } from './udp-transport.js';

const LOOPBACK = '127.0.0.1';

function replaceParam(transport: string, name: string, value: string): string {
  const pattern = new RegExp(`;\\s*${name}=[^;,]*`, 'i');
  return pattern.test(transport) ? transport.replace(pattern, `;${name}=${value}`) : `${transport};${name}=${value}`;
}

function portRange(transport: string, name: string): readonly [number, number] | undefined {
  const m = new RegExp(`;\\s*${name}=(\\d+)(?:-(\\d+))?`, 'i').exec(transport);
  if (m === null) return undefined;
  const first = Number(m[1]);
  return [first, m[2] === undefined ? first + 1 : Number(m[2])];
}

/** A SETUP that asks for unicast RTP over UDP with ffmpeg's own ports: the case the relay carries the media of. */
export function udpClientPorts(transport: string): readonly [number, number] | undefined {
  if (/TCP|multicast/i.test(transport)) return undefined;
  return portRange(transport, 'client_port');
}

/**
 * So that the relay can hold back the camera's Sender Reports (`withoutSenderReports`), a UDP track's datagrams go
 * through it as interleaved frames do: the camera is told the relay's port pair (in the SETUP it receives) and sends
 * there; ffmpeg is told another pair of the relay's on loopback as the server's ports, with `source=127.0.0.1`, and
 * sends its receiver reports (and NAT punch packets) there. Both pairs only take datagrams from their own peer (the
 * camera's address, loopback).
 */
export class RelayUdpTrack {
  private constructor(
    private readonly camera: UdpTrackSockets,
    private readonly ffmpeg: UdpTrackSockets,
    private readonly ffmpegPorts: readonly [number, number],
    private readonly cameraAddress: string,
  ) {}

  /** Binds the two pairs for a SETUP whose Transport asked for `ffmpegPorts`; `cameraAddress`: the RTSP peer's. */
  static async open(cameraAddress: string, ffmpegPorts: readonly [number, number]): Promise<RelayUdpTrack> {
    const parts: { camera?: UdpTrackSockets; ffmpeg?: UdpTrackSockets } = {};
    parts.camera = await UdpTrackSockets.bind(cameraAddress, {
      onRtp: (packet) => parts.ffmpeg?.sendRtp(packet),
      onRtcp: (packet) => {
        const passed = withoutSenderReports(packet);
        if (passed !== undefined) parts.ffmpeg?.sendRtcp(passed);
      },
    });
    try {
      parts.ffmpeg = await UdpTrackSockets.bind(LOOPBACK, {
        onRtp: (packet) => parts.camera?.sendRtp(packet),
        onRtcp: (packet) => parts.camera?.sendRtcp(packet),
      });
    } catch (err) {
      parts.camera.close();
      throw err;
    }
    parts.ffmpeg.setServer(LOOPBACK, ffmpegPorts[0], ffmpegPorts[1]);
    return new RelayUdpTrack(parts.camera, parts.ffmpeg, ffmpegPorts, cameraAddress);
  }

  /** The SETUP's Transport as the camera gets it: the relay's ports instead of ffmpeg's. */
  requestTransport(transport: string): string {
    return replaceParam(transport, 'client_port', `${this.camera.rtpPort}-${this.camera.rtpPort + 1}`);
  }

  /**
   * The camera's answer: where it sends from (its `source=`, else the RTSP peer) and to which of its ports RTCP goes.
   * Answers the Transport as ffmpeg gets it: its own ports, the relay's loopback pair as the server's.
   */
  answerTransport(transport: string): string {
    const source = /;\s*source=([^;,]+)/i.exec(transport)?.[1]?.trim();
    const server = portRange(transport, 'server_port');
    if (server !== undefined) this.camera.setServer(source !== undefined && isIP(source) !== 0 ? source : this.cameraAddress, server[0], server[1]);
    let out = replaceParam(transport, 'client_port', `${this.ffmpegPorts[0]}-${this.ffmpegPorts[1]}`);
    out = replaceParam(out, 'server_port', `${this.ffmpeg.rtpPort}-${this.ffmpeg.rtpPort + 1}`);
    return replaceParam(out, 'source', LOOPBACK);
  }

  close(): void {
    this.camera.close();
    this.ffmpeg.close();
  }
}
