#!/usr/bin/env bash
# Lints and builds at once (npm test's step before the tests): ESLint and tsc each use one core, and neither reads
# what the other writes. ESLint's output is printed after the build's; the exit status is non-zero when either failed.
# usage: scripts/lint-and-build.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
lint_log="$(mktemp "${TMPDIR:-/tmp}/vigil-lint.XXXXXX")"
trap 'rm -f "$lint_log"' EXIT
npm run lint >"$lint_log" 2>&1 &
lint_pid=$!
npm run build
build_status=$?
wait "$lint_pid"
lint_status=$?
cat "$lint_log"
[ "$lint_status" -eq 0 ] || echo "=== lint failed (exit $lint_status) ===" >&2
[ "$build_status" -eq 0 ] || echo "=== build failed (exit $build_status) ===" >&2
[ "$lint_status" -eq 0 ] && [ "$build_status" -eq 0 ]
