#!/usr/bin/env bash
# Measure this CPU's ceilings for the IFMA kernels (scripts/cpu_ceilings.c):
# core clock, IFMA throughput and latency, chain-operation latencies, adds
# beside IFMA, the quotient chain's step, a row's trip through memory,
# mask-register operations, MULX. Needs gcc and a CPU with AVX-512 IFMA. About 10 s.
#
#   bash scripts/cpu_ceilings.sh
set -euo pipefail
cd "$(dirname "$0")"
grep -q avx512ifma /proc/cpuinfo || { echo "cpu_ceilings.sh: this CPU has no AVX-512 IFMA" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
gcc -O2 -mavx512f -mavx512vl -mavx512bw -mavx512ifma -mbmi2 -o "$out/cpu_ceilings" cpu_ceilings.c
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') (family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ') model $(grep -m1 '^model[[:space:]]*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' '))"
"$out/cpu_ceilings"
