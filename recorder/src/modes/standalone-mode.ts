// Standalone: cameras from the configuration file only, the archive index from walking record_path, static peers.
import { localCameraLocator } from '../cameras/camera-locator.js';
import { staticPeerDirectory } from '../peers/peer-directory.js';
import type { ModeContext, RecorderMode } from './recorder-mode.js';

export function standaloneMode(ctx: ModeContext): RecorderMode {
  return {
    kind: 'standalone',
    archive: undefined,
    locator: localCameraLocator(ctx.registry, ctx.nodeName),
    peers: staticPeerDirectory(ctx.config.cluster.peers, ctx.config.tls === undefined ? 'http' : 'https'),
    storagePing: undefined,
    clusterStore: undefined,
    outbox: undefined,
    cluster: undefined,
    segmentClosed: async () => undefined,
    segmentsRemoved: async () => undefined,
    startCameraSources: async () => undefined,
    close: async () => undefined,
  };
}
