#!/usr/bin/env bash
# Regenerates the plots of docs/plots/ on this machine, each stamped with the
# CPU, the date and the commit: speed.svg (`redc speed --compare --plot`,
# redc against the OpenSSL anchors; the anchors are built as
# scripts/speed.sh builds them), bench_mont.svg (`redc bench mont --plot`,
# every Montgomery variant) and hw_reproduce.svg (`redc hw reproduce
# --plot`, the hardware models against the papers' tables).
# Usage: bash scripts/plots.sh [SECONDS per speed row, default 1]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-1}"
REDC_PLOT_COMMIT="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if ! git diff --quiet HEAD 2>/dev/null; then
    REDC_PLOT_COMMIT="$REDC_PLOT_COMMIT+changes"
fi
export REDC_PLOT_COMMIT
echo "plots.sh: building redc and the OpenSSL anchors" >&2
cargo build --release --locked -p redc-cli -p redc-openssl-anchor
cargo build --release --locked -p redc-openssl-anchor --features vendored --target-dir target/anchor-vendored
cp target/anchor-vendored/release/redc-openssl-anchor target/release/redc-openssl-anchor-vendored
redc=target/release/redc
echo "plots.sh: docs/plots/speed.svg" >&2
"$redc" speed --compare --bits 1024,2048,3072,4096 --seconds "$seconds" --plot docs/plots/speed.svg >/dev/null
echo "plots.sh: docs/plots/bench_mont.svg" >&2
"$redc" bench mont --bits 512,1024,2048,4096 --runs 11 --plot docs/plots/bench_mont.svg >/dev/null
echo "plots.sh: docs/plots/hw_reproduce.svg" >&2
"$redc" hw reproduce --plot docs/plots/hw_reproduce.svg >/dev/null
echo "plots.sh: done (commit $REDC_PLOT_COMMIT)" >&2
