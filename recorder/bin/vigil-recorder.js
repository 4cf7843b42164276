#!/usr/bin/env node
// Entry point of the recorder: the compiled composition root does the work.
import { main } from '../dist/src/main.js';

main(process.argv.slice(2)).then(
  (code) => {
    // Explicit exit: a stray handle must never keep a stopped recorder alive past its deadline.
    process.exit(typeof code === 'number' ? code : 0);
  },
  (err) => {
    process.stderr.write(`vigil-recorder: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
