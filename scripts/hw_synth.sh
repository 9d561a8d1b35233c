#!/usr/bin/env bash
# Yosys synthesis figures of the `redc hw rtl` designs (not run in CI: slow).
# For each design and modulus width: generic gates after `synth`, a
# NAND2-equivalent figure (ABC mapped to 2-input NAND + NOT, a NOT counted as
# one NAND2; flip-flops listed apart) and the logic depth (`ltp -noff`: the
# longest combinational path in NAND/NOT cells).  Needs yosys (Debian `yosys`).
# Usage: scripts/hw_synth.sh [BITS...]   (default: 16 32 64 128)
#        scripts/hw_synth.sh hrm [K...]  (002 pipeline, default k: 2 4 8 16 32; about 3 min)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v yosys >/dev/null 2>&1 || { echo "hw_synth.sh: yosys not found (apt-get install yosys)" >&2; exit 1; }
cargo build -q --release -p redc-cli
if [ "${1:-}" = hrm ]; then
  # 002: one processing unit and its combinational logic array (Fig. 4(b)) per
  # radix k, against eq. (2) (CLA gates) and eq. (5) (CLA delay), both in
  # NAND2 units: AND = 2, FA = 9, MUX = 4 cells; D_AND = 2, D_FA = 6,
  # D_MUX = 3 levels.  The PU does not depend on the modulus width; the
  # design is generated for HRM_BITS-bit moduli (default 128).
  shift
  ks=("$@")
  [ ${#ks[@]} -gt 0 ] || ks=(2 4 8 16 32)
  bits=${HRM_BITS:-128}
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  printf '%3s %9s %6s %8s %10s %9s %8s %8s\n' k pu_nand2 pu_ffs pu_depth cla_nand2 cla_depth eq2_nand2 eq5_depth
  for k in "${ks[@]}"; do
    d="$tmp/hrm-$k"
    target/release/redc hw rtl --design hrm --bits "$bits" --radix-bits "$k" -o "$d"
    for top in redc_hrm_pu redc_hrm_cla; do
      yosys -q -p "read_verilog $d/redc_hrm_pu.v; synth -flatten -top $top; abc -g NAND; opt_clean; tee -o $d/$top.stat stat; tee -o $d/$top.ltp ltp -noff" >/dev/null
    done
    pn=$(awk '/\$_NAND_|\$_NOT_/ {s+=$2} END {print s+0}' "$d/redc_hrm_pu.stat")
    pf=$(awk '/\$_.*DFF.*_/ {s+=$2} END {print s+0}' "$d/redc_hrm_pu.stat")
    pd=$(grep -o 'length=[0-9]*' "$d/redc_hrm_pu.ltp" | head -1 | cut -d= -f2)
    cn=$(awk '/\$_NAND_|\$_NOT_/ {s+=$2} END {print s+0}' "$d/redc_hrm_cla.stat")
    cd_=$(grep -o 'length=[0-9]*' "$d/redc_hrm_cla.ltp" | head -1 | cut -d= -f2)
    eq=$(awk -v k="$k" 'BEGIN {
      L = log(k) / log(2); mux = 0
      for (i = 2; i <= L; i++) mux += 2 ^ (i - 1) * 3 ^ (L - i)
      g = 2 * k * k * 2 + (14 * 3 ^ (L - 1) + 2 * k * k - k + 11) * 9 + (7 * mux + k) * 4
      dl = 2 + (4 + log(k + 1) / log(1.5)) * 6 + L * 3
      printf "%d %.0f", g, dl }')
    printf '%3s %9s %6s %8s %10s %9s %8s %8s\n' "$k" "$pn" "$pf" "$pd" "$cn" "$cd_" $eq
  done
  exit 0
fi
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
