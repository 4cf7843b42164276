#!/usr/bin/env bash
# Runs every workspace's tests (all of them, even after a failure) as one queue, four files at once (VIGIL_TEST_CONCURRENCY), the slowest first
# (scripts/test-suite.mjs), and, when any failed, prints the failing tests with their errors once more at the very
# end: a CI log that keeps only its tail still shows why.
# usage: scripts/run-tests.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
log="$(mktemp "${TMPDIR:-/tmp}/vigil-tests.XXXXXX")"
trap 'rm -f "$log"' EXIT
node scripts/test-suite.mjs --concurrency "${VIGIL_TEST_CONCURRENCY:-4}" --timeout 600000 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  echo
  echo "=== the failing tests again (node --test's own summaries, every workspace) ==="
  # The spec reporter ends a run with "✖ failing tests:" and the failures; the runner's list of slow files ends that block.
  awk '/^✖ failing tests:/ { show = 1 } /^test-suite: / { show = 0 } show' "$log"
  echo "=== tests failed (exit $status) ==="
fi
exit "$status"
