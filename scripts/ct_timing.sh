#!/usr/bin/env bash
# Timing test of the private-key operations on the kernels this CPU
# dispatches to (issue 14, item 3): builds crates/redc/examples/ct_timing.rs
# in the `ct` profile (release code, debug info) and runs it with SAMPLES measurements per input class
# (default 10000, the test command's short form). Further arguments go to the
# harness (--bits B, --suites LIST, --threshold T, --no-rerun, --verbose).
# Method, classes and the recorded long run: docs/CONSTANT_TIME.md.
#
# Usage: scripts/ct_timing.sh [SAMPLES] [HARNESS OPTIONS...]
# Exit:  0 every pair within |t| <= 4.5, 1 a pair over it (after its one
#        re-run), 2 bad usage or a build failure.
set -euo pipefail
cd "$(dirname "$0")/.."

samples="${1:-10000}"
if ! [[ "$samples" =~ ^[0-9]+$ ]]; then
    echo "usage: scripts/ct_timing.sh [SAMPLES] [HARNESS OPTIONS...]" >&2
    exit 2
fi
[ $# -gt 0 ] && shift

cargo build --quiet --profile ct --locked -p redc --example ct_timing || exit 2
echo "ct_timing.sh: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //'), $(date -u '+%Y-%m-%d %H:%M UTC')"
target="${CARGO_TARGET_DIR:-target}"
exec "$target/ct/examples/ct_timing" --samples "$samples" "$@"
