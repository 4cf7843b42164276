// RTP over UDP for one track: an even/odd local port pair, datagrams from the camera only, RTCP sent back.
import { createSocket, type Socket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import { RtspError } from './rtsp-errors.js';

export interface UdpTrackHandlers {
  /** One RTP datagram (a fresh Buffer per datagram; the same lifetime rule as TCP still applies to callers). */
  onRtp(packet: Buffer): void;
  onRtcp(packet: Buffer): void;
}

const BIND_ATTEMPTS = 20;

function bind(socket: Socket, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    socket.once('error', onError);
    socket.bind(port, () => {
      socket.off('error', onError);
      resolve(socket.address().port);
    });
  });
}

/**
 * RFC 3550 wants RTP on an even port and RTCP on the next one. Datagrams from any address but the camera's are
 * dropped (they cannot be ours, and a stranger must not inject media). UDP reads are not coalesced: dgram has
 * no onread, so every datagram is one callback.
 */
export class UdpTrackSockets {
  private server: { address: string; rtpPort: number; rtcpPort: number } | undefined;
  private closed = false;

  private constructor(
    private readonly rtp: Socket,
    private readonly rtcp: Socket,
    readonly rtpPort: number,
    handlers: UdpTrackHandlers,
  ) {
    rtp.on('message', (msg, rinfo) => {
      if (this.server !== undefined && rinfo.address === this.server.address) handlers.onRtp(msg);
    });
    rtcp.on('message', (msg, rinfo) => {
      if (this.server !== undefined && rinfo.address === this.server.address) handlers.onRtcp(msg);
    });
    // A send to a port the camera has not opened yet draws ICMP errors; they are not fatal for the session.
    rtp.on('error', () => undefined);
    rtcp.on('error', () => undefined);
  }

  /** Binds a fresh even/odd port pair in the camera's address family. */
  static async bind(cameraAddress: string, handlers: UdpTrackHandlers): Promise<UdpTrackSockets> {
    const type = isIPv6(cameraAddress) ? 'udp6' : 'udp4';
    for (let attempt = 0; attempt < BIND_ATTEMPTS; attempt++) {
      const rtp = createSocket(type);
      const rtcp = createSocket(type);
      try {
        const port = await bind(rtp, 0);
        if (port % 2 === 0 && port < 65535) {
          await bind(rtcp, port + 1);
          return new UdpTrackSockets(rtp, rtcp, port, handlers);
        }
      } catch {
        // The odd neighbour was taken: try another pair.
      }
      rtp.close();
      rtcp.close();
    }
    throw new RtspError(`no free even/odd UDP port pair after ${BIND_ATTEMPTS} attempts`);
  }

  /** Where the camera sends from (SETUP's server_port) and so where RTCP goes. */
  setServer(address: string, rtpPort: number, rtcpPort: number): void {
    this.server = { address, rtpPort, rtcpPort };
  }

  /** An RTP datagram to the server (the credential relay passing ffmpeg's NAT punch packets on). */
  sendRtp(packet: Buffer): boolean {
    if (this.closed || this.server === undefined) return false;
    this.rtp.send(packet, this.server.rtpPort, this.server.address);
    return true;
  }

  sendRtcp(packet: Buffer): boolean {
    if (this.closed || this.server === undefined) return false;
    this.rtcp.send(packet, this.server.rtcpPort, this.server.address);
    return true;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.rtp.close();
    this.rtcp.close();
  }
}
