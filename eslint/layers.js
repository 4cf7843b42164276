// Lint rule `vigil/layers`: the recorder's layers only look down, only http/ touches fastify and ws, and workspaces keep apart.
import { dirname, relative, resolve, sep } from 'node:path';

/**
 * Each folder of recorder/src and the folders it may import (its own is always allowed). Top-level files
 * (main.ts, recorder.ts, *-wiring.ts) are the composition root: they may import anything, nothing imports them.
 * A new folder must be added here, with the layers below it.
 */
export const RECORDER_LAYERS = {
  util: [],
  media: [],
  process: [],
  config: ['util'],
  log: ['util'],
  license: ['util'],
  peers: ['tls', 'util'],
  tls: ['util'],
  metrics: ['util'],
  rtp: ['util'],
  stream: ['media', 'util'],
  cameras: ['config', 'util'],
  health: ['license', 'util'],
  ingest: ['cameras', 'media', 'process', 'rtp', 'rtsp', 'stream', 'util'],
  recording: ['cameras', 'media', 'process', 'stream', 'util'],
  snapshot: ['cameras', 'util'],
  ptz: ['cameras', 'util'],
  db: ['cameras', 'config', 'recording', 'util'],
  archive: ['cameras', 'config', 'db', 'media', 'recording', 'util'],
  jobs: ['media', 'peers', 'process', 'recording', 'util'],
  playback: ['archive', 'media', 'recording', 'util'],
  fleet: ['cameras', 'ingest', 'recording', 'stream', 'util'],
  cluster: ['archive', 'cameras', 'config', 'db', 'health', 'peers', 'recording', 'tls', 'util'],
  modes: ['archive', 'cameras', 'cluster', 'config', 'db', 'health', 'peers', 'recording', 'util'],
  rtsp: ['util'],
  http: ['archive', 'cameras', 'cluster', 'config', 'health', 'jobs', 'license', 'media', 'metrics', 'playback', 'ptz', 'recording', 'snapshot', 'stream', 'tls', 'util'],
};

/**
 * Packages only some folders may import (every other folder of that workspace may not). A subpath entry
 * ('pkg/sub') names who may import just that entry point; it takes precedence over the package's own entry.
 */
export const RECORDER_PACKAGE_OWNERS = {
  fastify: ['http'],
  'fastify-type-provider-zod': ['http'],
  '@fastify/swagger': ['http'],
  ws: ['http'],
  pg: ['db', 'archive'],
  onvif: ['ptz'],
  '@kubernetes/client-node': ['cluster'],
  '@vigil/kube': ['cluster'],
  '@vigil/kube/log-format': ['log'],
  '@vigil/crds': ['cluster'],
};

/** Workspace → workspaces and packages its sources must never import. */
const FORBIDDEN_BETWEEN_WORKSPACES = {
  recorder: ['operator', 'testing'],
  operator: ['recorder', 'testing'],
  crds: ['recorder', 'operator', 'testing', 'kube'],
  kube: ['recorder', 'operator', 'testing'],
};

function packageName(spec) {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function check(context, node, spec, root) {
  const file = context.filename;
  const fromRel = relative(root, file).split(sep);
  const workspace = fromRel[0];
  const inSrc = fromRel[1] === 'src';
  const report = (message) => context.report({ node, message });
  if (spec.startsWith('.')) {
    const targetRel = relative(root, resolve(dirname(file), spec)).split(sep);
    const targetWorkspace = targetRel[0];
    if (targetWorkspace !== workspace && (FORBIDDEN_BETWEEN_WORKSPACES[workspace] ?? []).includes(targetWorkspace)) {
      return report(`${workspace}/ never imports ${targetWorkspace}/ (they talk only through the Kubernetes API and HTTP)`);
    }
    if (workspace !== 'recorder' || !inSrc || targetWorkspace !== 'recorder' || targetRel[1] !== 'src') return undefined;
    const from = fromRel.length > 3 ? fromRel[2] : '';
    const to = targetRel.length > 3 ? targetRel[2] : '';
    if (from === '' || from === to) return undefined;
    if (!(from in RECORDER_LAYERS)) return report(`recorder/src/${from}/ is not in the layer table (eslint/layers.js): add it with the layers it may import`);
    if (to === '') return report(`recorder/src/${from}/ imports the composition root (${targetRel.slice(2).join('/')}); lower layers report upward through callbacks instead`);
    if (!RECORDER_LAYERS[from].includes(to)) return report(`recorder/src/${from}/ may not import recorder/src/${to}/ (layers only look down; see eslint/layers.js)`);
    return undefined;
  }
  const pkg = packageName(spec);
  for (const other of FORBIDDEN_BETWEEN_WORKSPACES[workspace] ?? []) {
    if (pkg === `@vigil/${other}` && (inSrc || other !== 'testing')) return report(`${workspace}/ never imports @vigil/${other}`);
  }
  if (workspace === 'recorder' && inSrc) {
    const entry = spec in RECORDER_PACKAGE_OWNERS ? spec : pkg;
    const owners = RECORDER_PACKAGE_OWNERS[entry];
    const from = fromRel.length > 3 ? fromRel[2] : '';
    if (owners !== undefined && from !== '' && !owners.includes(from)) return report(`only recorder/src/${owners.join('/, ')}/ may import ${entry}`);
  }
  return undefined;
}

/** The plugin; `root` is the repository root the workspace folders sit in. */
export function layersPlugin(root) {
  return {
    rules: {
      layers: {
        meta: { type: 'problem', docs: { description: 'imports follow the layer table of eslint/layers.js' }, schema: [] },
        create(context) {
          const visit = (node) => {
            if (node.source?.type === 'Literal' && typeof node.source.value === 'string') check(context, node, node.source.value, root);
          };
          return { ImportDeclaration: visit, ExportNamedDeclaration: visit, ExportAllDeclaration: visit, ImportExpression: visit };
        },
      },
    },
  };
}
