#!/usr/bin/env bash
# Run every cargo-fuzz target of fuzz/ for SECONDS seconds each (issue 14,
# item 2): key files, signature verification, decryption, the command line.
#
# Usage: scripts/fuzz.sh SECONDS [TARGET...]   (default: every target)
#
# Needs the nightly toolchain (rustup) and cargo-fuzz, installed with
# `cargo install cargo-fuzz --locked` when absent. Each target starts from
# the committed seed corpus fuzz/seeds/TARGET plus the working corpus
# fuzz/corpus/TARGET (not committed; it grows from run to run). Built with
# debug assertions and overflow checks (cargo fuzz -a) and the sanitizer
# REDC_FUZZ_SANITIZER (cargo fuzz -s: address by default; none, for the
# short run of scripts/test.sh, see there). REDC_FUZZ_OPT_LEVEL sets the
# optimisation level of the fuzz build (default 3, cargo-fuzz's own; the
# short run of scripts/test.sh uses 1, see there).
#
# A crash, a timeout (one input over 10 s) or running out of memory fails the
# target: libFuzzer's input is copied to fuzz/regressions/TARGET/, which
# `cargo test` replays through the same entry points
# (crates/redc-cli/tests/fuzz_regressions.rs): commit it with the fix.
# Exit: 0 no target failed, 1 a target failed, 2 the run could not start.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/fuzz"

seconds="${1:-}"
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: scripts/fuzz.sh SECONDS [TARGET...]" >&2
    exit 2
fi
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(private_key public_key verify decrypt cli_args)
sanitizer="${REDC_FUZZ_SANITIZER:-address}"
opt_level="${REDC_FUZZ_OPT_LEVEL:-3}"
if ! [[ "$opt_level" =~ ^[0-3]$ ]]; then
    echo "fuzz.sh: REDC_FUZZ_OPT_LEVEL must be 0-3, not '$opt_level'" >&2
    exit 2
fi
# cargo-fuzz builds the release profile; Cargo reads its level from here.
export CARGO_PROFILE_RELEASE_OPT_LEVEL="$opt_level"
# Where the fuzz build goes: REDC_FUZZ_TARGET_DIR, default fuzz/target. A
# directory kept outside the clone (scripts/test.sh uses one) lets a rerun on
# the same machine reuse the dependencies' build, libFuzzer's C++ included.
target_dir=()
[ -z "${REDC_FUZZ_TARGET_DIR:-}" ] || target_dir=(--target-dir "$REDC_FUZZ_TARGET_DIR")

if ! cargo +nightly --version >/dev/null 2>&1; then
    if command -v rustup >/dev/null 2>&1; then
        echo "fuzz.sh: installing the nightly toolchain" >&2
        rustup toolchain install nightly --profile minimal >/dev/null
    else
        echo "fuzz.sh: no nightly toolchain and no rustup to install one" >&2
        exit 2
    fi
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz.sh: installing cargo-fuzz" >&2
    cargo install cargo-fuzz --locked >/dev/null
fi

echo "fuzz.sh: building ${targets[*]} (nightly, sanitizer: $sanitizer, opt-level $opt_level, debug assertions)"
for t in "${targets[@]}"; do
    if ! out=$(cargo +nightly fuzz build "${target_dir[@]}" -a -s "$sanitizer" "$t" 2>&1); then
        echo "$out" | tail -n 30 >&2
        echo "fuzz.sh: building $t failed" >&2
        exit 2
    fi
done

failed=()
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t" "artifacts/$t"
    log="artifacts/$t/last-run.log"
    rm -f "artifacts/$t"/crash-* "artifacts/$t"/timeout-* "artifacts/$t"/oom-* "artifacts/$t"/leak-*
    status=0
    cargo +nightly fuzz run "${target_dir[@]}" -a -s "$sanitizer" "$t" "corpus/$t" "seeds/$t" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        >"$log" 2>&1 || status=$?
    runs=$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    found=$(find "artifacts/$t" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \))
    if [ "$status" -ne 0 ] || [ -n "$found" ]; then
        failed+=("$t")
        echo "fuzz.sh: $t FAILED (status $status after $runs runs); log: fuzz/$log"
        grep -E -m5 "panicked at|ERROR: libFuzzer|SUMMARY" "$log" | sed 's/^/    /' || true
        mkdir -p "regressions/$t"
        for f in $found; do
            cp "$f" "regressions/$t/"
            echo "    input kept as fuzz/regressions/$t/$(basename "$f")"
        done
    else
        echo "fuzz.sh: $t ok: $runs runs in ${seconds} s, corpus $(find "corpus/$t" -type f | wc -l) files"
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz.sh: FAILED: ${failed[*]}"
    exit 1
fi
echo "fuzz.sh: every target ran ${seconds} s without a failure"
