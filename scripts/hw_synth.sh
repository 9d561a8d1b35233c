#!/usr/bin/env bash
# Yosys synthesis figures of the `redc hw rtl` designs (not run in CI: slow).
# For each design and modulus width: generic gates after `synth`, a
# NAND2-equivalent figure (ABC mapped to 2-input NAND + NOT, a NOT counted as
# one NAND2; flip-flops listed apart) and the logic depth (`ltp -noff`: the
# longest combinational path in NAND/NOT cells).  Needs yosys (Debian `yosys`).
# Usage: scripts/hw_synth.sh [BITS...]   (default: 16 32 64 128)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v yosys >/dev/null 2>&1 || { echo "hw_synth.sh: yosys not found (apt-get install yosys)" >&2; exit 1; }
cargo build -q --release -p redc-cli
bits_list=("$@")
[ ${#bits_list[@]} -gt 0 ] || bits_list=(16 32 64 128)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-8s %5s %8s %6s %6s %9s %9s\n' design bits nand2eq dffs depth mul_nand2 mul_depth
for bits in "${bits_list[@]}"; do
  for design in csa5to2 csa4to2; do
    d="$tmp/$design-$bits"
    target/release/redc hw rtl --design "$design" --bits "$bits" -o "$d"
    log="$d/yosys.log"
    yosys -q -l "$log" -p "read_verilog $d/redc_csa.v; synth -flatten -top redc_csa_exp; abc -g NAND; opt_clean; tee -o $d/stat.txt stat; tee -o $d/ltp.txt ltp -noff" >/dev/null
    nand=$(awk '/\$_NAND_/ {s+=$2} END {print s+0}' "$d/stat.txt")
    inv=$(awk '/\$_NOT_/ {s+=$2} END {print s+0}' "$d/stat.txt")
    dff=$(awk '/\$_.*DFF.*_/ {s+=$2} END {print s+0}' "$d/stat.txt")
    depth=$(grep -o 'length=[0-9]*' "$d/ltp.txt" | head -1 | cut -d= -f2)
    # one multiplier alone (the 004 Table 1 unit)
    yosys -q -p "read_verilog $d/redc_csa.v; synth -flatten -top redc_csa_mul; abc -g NAND; opt_clean; tee -o $d/mul.txt stat; tee -o $d/mltp.txt ltp -noff" >/dev/null
    md=$(grep -o 'length=[0-9]*' "$d/mltp.txt" | head -1 | cut -d= -f2)
    mn=$(awk '/\$_NAND_|\$_NOT_/ {s+=$2} END {print s+0}' "$d/mul.txt")
    printf '%-8s %5s %8s %6s %6s %9s %9s\n' "$design" "$bits" "$((nand + inv))" "$dff" "$depth" "$mn" "$md"
  done
done
