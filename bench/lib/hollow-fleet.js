// A child process of the scale benchmark running a share of its hollow recorders (recorder/test/support/hollow-recorder.ts):
// the recorder's own cluster code for each node, as that node's ServiceAccount. Commands on stdin, one per line:
// `stats` (answers one JSON line with every recorder's figures), `silence <node>`, `stop`.
// usage: node bench/lib/hollow-fleet.js '<json: {namespace, nodes: [{node, kubeconfig}]}>'
import { createInterface } from 'node:readline';
import { pino } from 'pino';
import { HollowRecorder } from '../../recorder/dist/test/support/hollow-recorder.js';

const { namespace, nodes } = JSON.parse(process.argv[2]);
const log = pino({ level: 'error' }, process.stderr);
const recorders = new Map(nodes.map(({ node, kubeconfig }) => [node, new HollowRecorder(node, kubeconfig, namespace, log.child({ node }))]));
for (const r of recorders.values()) r.start();

const answer = (msg) => process.stdout.write(`${JSON.stringify(msg)}\n`);
createInterface({ input: process.stdin }).on('line', (line) => {
  const [command, arg] = line.trim().split(/\s+/);
  if (command === 'stats') answer({ stats: [...recorders.values()].map((r) => ({ ...r.stats(), synced: r.view.synced })) });
  else if (command === 'silence') {
    recorders.get(arg)?.silence();
    answer({ silenced: arg });
  } else if (command === 'stop') {
    for (const r of recorders.values()) r.stop();
    answer({ stopped: true });
    setTimeout(() => process.exit(0), 100);
  }
});
process.stdin.on('end', () => process.exit(0));
answer({ started: recorders.size });
