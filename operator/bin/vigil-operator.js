#!/usr/bin/env node
// vigil-operator: see docs/kubernetes.md, section "Operator".
import { main } from '../dist/src/main.js';

main(process.argv.slice(2), process.env).then(
  (code) => {
    // Exit now: after lost leadership nothing may go on running (never a half-leader), and after SIGTERM
    // everything was closed and the Lease released already.
    process.exit(code);
  },
  (err) => {
    process.stderr.write(`vigil-operator: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
