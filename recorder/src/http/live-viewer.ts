// One live WebSocket viewer: feeds it the hub's init segment and fragments, with backpressure, timeouts and close codes.
import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import type { StreamItem } from '../stream/stream-item.js';
import type { LiveHub } from './services.js';

/** Close codes of /websocket/{camera_id}; docs/live.md lists the same table. */
export const LIVE_CLOSE = {
  /** The camera vanished from this node between the upgrade check and the subscription. */
  cameraNotFound: 4404,
  /** The camera sent no init segment within stall_seconds of the connection. */
  noStreamInTime: 4408,
  /** The camera's stream ended (stopped, stalled, ffmpeg exited) or the camera is stopped; reconnect later. */
  streamEnded: 4410,
  /** The recorder is shutting down (standard "going away"). */
  goingAway: 1001,
} as const;

export interface LiveLimits {
  /** Bytes a viewer's queue holds before its backlog is dropped and delivery resumes at the next keyframe. */
  maxQueuedBytes: number;
  /** Bytes the socket may hold unsent before the viewer's queue stops draining into it. */
  maxBufferedBytes: number;
  /** A ping goes out this often; a peer that answered no ping since the previous one is dropped. */
  pingIntervalMs: number;
}

export const DEFAULT_LIVE_LIMITS: LiveLimits = {
  maxQueuedBytes: 8 * 1024 * 1024,
  maxBufferedBytes: 1024 * 1024,
  pingIntervalMs: 15_000,
};

export interface LiveViewerOptions {
  ws: WebSocket;
  cameraId: string;
  /** undefined when the camera is known but stopped. */
  hub: LiveHub | undefined;
  /** How long a viewer waits for the first init segment (stall_seconds). */
  waitForStreamMs: number;
  limits: LiveLimits;
  log: Logger;
}

/** Streams one camera to one socket until either side ends; never blocks the hub. */
export function serveLiveViewer(opts: LiveViewerOptions): void {
  const { ws, cameraId, hub, log, limits } = opts;
  const startedAt = Date.now();
  if (hub === undefined) {
    ws.close(LIVE_CLOSE.streamEnded, 'camera is stopped');
    return;
  }
  let open = true;
  let initSent = false;
  let keyframeSent = false;
  const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
  const close = (code: number, reason: string): void => {
    if (!open) return;
    open = false;
    ws.close(code, reason);
  };

  const waitTimer = setTimeout(() => close(LIVE_CLOSE.noStreamInTime, `no stream from the camera within ${opts.waitForStreamMs / 1000} s`), opts.waitForStreamMs);

  /** Resolves once the socket's unsent bytes are under the bound again (or the socket is gone). */
  const send = (data: Buffer): Promise<void> =>
    new Promise<void>((resolve) => {
      let done = false;
      const finish = (): void => {
        if (done) return;
        done = true;
        ws.off('close', finish);
        resolve();
      };
      // The write callback fires once the bytes reached the kernel; a socket that is closed meanwhile also ends the wait.
      ws.send(data, { binary: true }, finish);
      if (ws.bufferedAmount <= limits.maxBufferedBytes) finish();
      else if (!done) ws.once('close', finish);
    });

  const deliver = async (item: StreamItem): Promise<void> => {
    if (!open) return;
    if (item.type === 'init') {
      clearTimeout(waitTimer);
      initSent = true;
      keyframeSent = false;
      await send(item.init.data);
    } else if (item.type === 'fragment') {
      // A player can only start decoding at a keyframe; before the camera's first one, the GOP cache holds none.
      if (!initSent || (!keyframeSent && !item.fragment.keyframe)) return;
      keyframeSent = true;
      await send(item.fragment.data);
    } else {
      close(LIVE_CLOSE.streamEnded, `stream ended: ${item.reason}`);
    }
  };

  const subscription = hub.subscribe({
    kind: 'live',
    maxQueuedBytes: limits.maxQueuedBytes,
    handle: deliver,
    onError: (err) => log.warn({ camera: cameraId, err: String(err) }, 'live viewer send failed'),
  });

  let answered = true;
  const pinger = setInterval(() => {
    if (!answered) {
      log.info({ camera: cameraId }, 'live viewer answered no ping; dropping it');
      open = false;
      ws.terminate();
      return;
    }
    answered = false;
    ws.ping();
  }, limits.pingIntervalMs);
  ws.on('pong', () => {
    answered = true;
  });
  // Viewers have nothing to say; anything they send is ignored (maxPayload bounds it).
  ws.on('message', () => undefined);
  ws.on('error', (err) => log.debug({ camera: cameraId, err: err.message }, 'live viewer socket error'));

  void closed.then(() => {
    open = false;
    clearTimeout(waitTimer);
    clearInterval(pinger);
    const stats = subscription.stats;
    subscription.unsubscribe();
    log.info(
      { camera: cameraId, seconds: Math.round((Date.now() - startedAt) / 1000), delivered: stats.delivered, dropped: stats.dropped, skips: stats.skips },
      'live viewer left',
    );
  });
}
