#!/usr/bin/env node
// Entry point of the recorder: the compiled composition root does the work.
import { setFlagsFromString } from 'node:v8';

// Before anything is loaded: V8's idle-time task otherwise starts a full (mark-compact) collection about every
// 0.8 s under the steady allocation of native ingest (a few views per RTP packet), each walking the whole heap on
// every core. Without it, full collections start when allocation reaches the heap's limits, as in any busy
// process: 50 cameras measured 28 → 11 full collections per 20 s and about a third less CPU (docs/benchmarks.md).
// A flag this V8 does not know is ignored.
setFlagsFromString('--no-incremental-marking-task');

// The young generation stops growing at 4 MiB instead of 32 (~29 MiB less memory at 50 cameras, the same CPU).
const { capYoungGeneration } = await import('../dist/src/process/young-generation-cap.js');
capYoungGeneration();

const { main } = await import('../dist/src/main.js');

main(process.argv.slice(2)).then(
  (code) => {
    // Explicit exit: a stray handle must never keep a stopped recorder alive past its deadline.
    process.exit(typeof code === 'number' ? code : 0);
  },
  (err) => {
    process.stderr.write(`vigil-recorder: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
    // What was started has been stopped (a port that cannot be bound stops the cameras first); a stray handle must
    // not keep a failed recorder running.
    setTimeout(() => process.exit(1), 1000).unref();
  },
);
