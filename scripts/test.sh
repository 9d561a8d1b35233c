#!/usr/bin/env bash
# Every test of the project, on a fresh machine: installs what is missing,
# then runs the whole workspace's tests in the optimised test profile.
# Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v cc >/dev/null 2>&1 || need_apt+=(gcc)
command -v openssl >/dev/null 2>&1 || need_apt+=(openssl)
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
# make and perl build OpenSSL's evp_test (scripts/openssl_evp_test.sh).
command -v make >/dev/null 2>&1 || need_apt+=(make)
command -v perl >/dev/null 2>&1 || need_apt+=(perl)
command -v valgrind >/dev/null 2>&1 || need_apt+=(valgrind)
# Python 3.9+ with venv for the Python package's tests.
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need_apt+=(python3 python3-venv)
command -v iverilog >/dev/null 2>&1 || need_apt+=(iverilog)
# nginx for the OpenSSL provider's handshake test (crates/redc-provider/tests/nginx.rs).
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need_apt+=(nginx)
if [ ! -e /usr/include/openssl/ssl.h ] && [ ! -e /usr/include/x86_64-linux-gnu/openssl/opensslconf.h ]; then
    need_apt+=(libssl-dev)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "test.sh: installing ${need_apt[*]}" >&2
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
    else
        echo "test.sh: missing ${need_apt[*]}; run as root or install them" >&2
        exit 1
    fi
fi
if ! command -v cargo >/dev/null 2>&1; then
    echo "test.sh: cargo not found: install Rust 1.89 or newer (rustup)" >&2
    exit 1
fi

# No incremental compilation: a fresh machine has no cache to reuse, and
# writing one cost CI's build of redc's test profile about 20 s (109 s
# against 91 s for the library alone). A caller's own setting wins.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

# Each step says when it starts, in seconds since the start, on stderr: where
# CI's time goes.
step() { echo "test.sh: [${SECONDS}s] $*" >&2; }

# Builds kept outside the clone, for a rerun on the same machine: the Python
# virtualenv and the fuzz build (REDC_PY_CACHE, default ~/.cache/redc).
redc_cache="${REDC_PY_CACHE:-$HOME/.cache/redc}"

# OpenSSL 3.0's and 3.5's evp_test, for the provider's run of OpenSSL's RSA
# test data (crates/redc-provider/tests/evp_test.rs), built in the
# background while cargo builds (a few minutes each, once per machine:
# cached in /var/cache/redc or ~/.cache/redc); the test waits for them.
evp_log="$(mktemp)"
( bash scripts/openssl_evp_test.sh 3.0 && bash scripts/openssl_evp_test.sh 3.5 ) >"$evp_log" 2>&1 &
# Every test on the fastest kernels this CPU has (runtime dispatch): built
# first, then, while they run, the constant-time harnesses (profile ct,
# below) build in the background. The ct build uses its own profile
# directory, and the test run and the fuzz build leave a core idle much of
# the time (single-threaded tests waiting on openssl, rustc's front end on
# redc), which the ct build fills. Tests here do not measure time; the
# timing test runs only after the ct build has finished (wait, below).
# The build's artifact list (JSON) names the test executables, which the
# kernel reruns below run again without a rebuild. Both cargo test lines
# enable redc's `probes` feature (the per-call kernel entry points the
# kernel tests and benchmarks call); the ct build below does not: the
# constant-time harnesses test the library as users build it.
step "building the workspace's tests"
# The integration tests and binaries first, then the rest: one `cargo test`
# would compile redc's library and its unit-test harness side by side, two
# optimised rustcs of redc near 13 GB each, which a 24 GB machine does not
# hold (the kernel killed one). The first line builds the library (with the
# same features and profile as the second: it is fresh there) but not the
# harness, which the second compiles beside smaller crates only.
cargo test --workspace --locked --features redc/probes --no-run --test '*' --bins --quiet
bins_json="$(mktemp)"
cargo test --workspace --locked --features redc/probes --no-run --message-format=json-render-diagnostics >"$bins_json"
ct_log="$(mktemp)"
# The Python package's crate is in the same build: its dependencies ask for
# the features that redc's example dependencies turn on, so the optimised
# redc built here is the one maturin links below (not compiled twice).
cargo build --quiet --locked --profile ct -p redc -p redc-python --lib --example ct_audit --example ct_timing \
    >"$ct_log" 2>&1 &
ct_build=$!
trap 'kill "$ct_build" 2>/dev/null || true; rm -f "$ct_log" "$evp_log" "$bins_json"' EXIT
step "running the workspace's tests"
cargo test --workspace --locked --features redc/probes
# The constant-time harnesses' build (profile ct) ends before anything else
# compiles redc: one optimised rustc of redc peaks near 12 GB, and two at
# once exceed a 24 GB machine.
if ! wait "$ct_build"; then
    cat "$ct_log" >&2
    echo "test.sh: building the constant-time harnesses (profile ct) failed" >&2
    exit 1
fi
# The Python package (crates/redc-python): its extension built into a
# virtualenv kept outside the clone (REDC_PY_CACHE, default ~/.cache/redc;
# pip caches the wheels, so a rerun installs nothing), then its pytest suite:
# interop with pyca/cryptography and PyJWT both ways, key files, errors, a
# fuzz-style loop. The extension is built in the optimised ct profile,
# reusing the redc that the constant-time harnesses' background build made
# (maturin compiles pyo3 and the bindings only, about 30 s); the test
# profile would not do: `cargo rustc --profile test` builds a test-harness
# executable, which Python cannot load.
step "the Python package"
py_venv="$redc_cache/pyvenv"
[ -x "$py_venv/bin/python" ] || python3 -m venv "$py_venv"
"$py_venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "maturin>=1.5,<2" pytest cryptography PyJWT
(cd crates/redc-python && VIRTUAL_ENV="$py_venv" PATH="$py_venv/bin:$PATH" \
    maturin develop --quiet --locked --profile ct)
"$py_venv/bin/python" -m pytest -q crates/redc-python/tests
# The kernel choice of redc is fixed per process (REDC_KERNEL,
# REDC_FORCE_PORTABLE, read once). The run above reaches every family this
# CPU has in one process through `redc::exp::Backend` (kat_backends,
# exp_oracle, rsa_core, rustcrypto_traits force each backend in turn, and
# arch_adx, arch_avx2, arch_ifma call the kernels directly; mont_oracle's
# kernels do not dispatch). Run again here is only what a request alone
# decides. They run the test executables the workspace build made, from
# redc's directory as cargo does: `cargo test -p redc` would resolve redc's
# features apart from the workspace's and build the library and its tests
# anew, an optimised rustc of redc (about 12 GB) that cost CI minutes.
redc_tests() {
    # The executables of redc's targets named in "$@" ("lib" for the unit
    # tests), from the build's artifact list.
    python3 - "$bins_json" "$@" <<'PY'
import json, sys
path, wanted = sys.argv[1], set(sys.argv[2:])
found = {}
for line in open(path):
    if not line.startswith("{"):
        continue
    m = json.loads(line)
    if m.get("reason") != "compiler-artifact" or not m.get("executable"):
        continue
    if not m["manifest_path"].endswith("crates/redc/Cargo.toml"):
        continue
    name = "lib" if "lib" in m["target"]["kind"] else m["target"]["name"]
    if name in wanted:
        found[name] = m["executable"]
missing = wanted - set(found)
if missing:
    sys.exit("test.sh: no test executable for redc's " + ", ".join(sorted(missing)))
print("\n".join(found[n] for n in sorted(found)))
PY
}
run_redc_tests() {
    # run_redc_tests LABEL TARGET...: each executable, stopping at a failure.
    local label="$1" bins bin
    shift
    bins="$(redc_tests "$@")"
    while IFS= read -r bin; do
        echo "test.sh: $label: $(basename "$bin")" >&2
        (cd crates/redc && "$bin" -q)
    done <<<"$bins"
}
step "redc's tests on the other kernels"
# The unit tests read the request itself: which CPU features it leaves
# (arch::x86_64::cpu), the batch path's lane choice and the fault checks on
# the engines it dispatches to (rsa::batch, rsa::private). First the
# portable request: REDC_FORCE_PORTABLE=1 obeyed, no x86-64 kernel runs.
REDC_FORCE_PORTABLE=1 run_redc_tests "REDC_FORCE_PORTABLE=1" lib
# Then each family that is not this CPU's default (the default is the run
# above; a request the CPU cannot run falls back to what it can, a run that
# would repeat another).
cpu_flags="$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)"
has_flag() { [[ " $cpu_flags " == *" $1 "* ]]; }
# MULX/ADX: the default only where AVX2 is missing.
if has_flag bmi2 && has_flag adx && has_flag avx2; then
    REDC_KERNEL=adx run_redc_tests "REDC_KERNEL=adx" lib
fi
if has_flag avx512ifma; then
    # AVX2: not the default where IFMA runs.
    REDC_KERNEL=avx2 run_redc_tests "REDC_KERNEL=avx2" lib
    # The dual IFMA kernel's squaring forced to the dedicated kernel, then
    # to the product: otherwise calibration picks one per size, and only
    # REDC_KERNEL selects the other for the RSA path (rsa_core) and the
    # dual key's public exponentiation (arch_ifma; its secret one tests
    # both squarings directly).
    for kernel in ifma-sqr ifma-mul; do
        REDC_KERNEL=$kernel run_redc_tests "REDC_KERNEL=$kernel" arch_ifma rsa_core lib
    done
fi
# The AVX2 kernels with AVX-512 hidden: at most 15 registers (primes to
# 1594 bits), as on a CPU with AVX2 alone; unmasked, AVX-512VL's 32 ymm
# registers carry them to 20 (RSA-4096's primes).
if has_flag avx2 && has_flag avx512f && has_flag avx512vl; then
    REDC_CPU_DISABLE=avx512 run_redc_tests "REDC_CPU_DISABLE=avx512" arch_avx2
fi
# The batch path without IFMA: pairs of RSA-3072 and RSA-4096 operations in
# the four-lane AVX2 kernel (rsa::batch's unit tests assert that it is the
# lane choice there), with and without AVX-512F beside AVX2.
if has_flag avx512ifma && has_flag avx2; then
    for mask in ifma ifma,avx512; do
        REDC_CPU_DISABLE=$mask run_redc_tests "REDC_CPU_DISABLE=$mask" batch lib
    done
fi
# Fuzzing: every cargo-fuzz target of fuzz/ for a short bounded time (nightly
# and cargo-fuzz are installed when absent); a crash fails the run and leaves
# its input in fuzz/regressions/<target>/, which the cargo test above replays.
# This short run is built without AddressSanitizer (REDC_FUZZ_SANITIZER=address
# brings it back): redc's only unsafe code is the x86-64 kernels, which
# differential tests cover at every size they take, and the instrumented
# build of redc took 183 s against 115 s, CI's largest avoidable cost.
# Panics (bounds and overflow checks included), timeouts and running out
# of memory still fail it; longer campaigns (scripts/fuzz.sh) use ASan.
# Uninstrumented, a target runs 8-18 times the inputs per second it ran
# with ASan (decrypt: 131894 inputs in 8 s against 7285), so 5 s per target
# runs five to eleven times what 8 s did.
# It is also built at opt-level 1 (REDC_FUZZ_OPT_LEVEL=3 brings back
# cargo-fuzz's own level): optimising redc's kernels was this build's bulk.
# AMD EPYC Zen 4, rebuilding redc and one target alone: 159 s against 294 s
# at opt-level 3, with about half the inputs per second (private_key:
# 232189 inputs in 5 s against 420060).
step "fuzzing"
# Its build goes to a directory kept outside the clone (beside the Python
# virtualenv), so a rerun on the same machine compiles only redc's crates.
REDC_FUZZ_SANITIZER="${REDC_FUZZ_SANITIZER:-none}" REDC_FUZZ_OPT_LEVEL="${REDC_FUZZ_OPT_LEVEL:-1}" \
    REDC_FUZZ_TARGET_DIR="${REDC_FUZZ_TARGET_DIR:-$redc_cache/fuzz-target}" \
    bash scripts/fuzz.sh "${REDC_FUZZ_SECONDS:-5}"
# Constant-time audit of the private operation under valgrind memcheck
# (secrets marked undefined; any branch or address on them fails it).
step "constant-time audit"
bash scripts/ct_audit.sh portable
# Timing test of the private operation, PKCS#1 v1.5 and OAEP decryption on
# the kernels this CPU dispatches to (short form: 10^4 samples per class,
# RSA-2048; a pair over |t| = 4.5 is re-run once before it fails).
step "timing test"
bash scripts/ct_timing.sh "${REDC_CT_SAMPLES:-10000}" --suites private,pkcs1v15,oaep
# The batch suite (four operations per measurement) with half the samples: the
# CI budget; scripts/ct_timing.sh SAMPLES runs every suite in full.
bash scripts/ct_timing.sh "$(( ${REDC_CT_SAMPLES:-10000} / 2 ))" --suites batch
# The radix-2^28 lane kernels of batch signing without IFMA, where this CPU
# has IFMA (the runs above took its eight IFMA lanes): eight lanes in zmm
# (IFMA hidden) at RSA-2048, four in ymm (AVX-512 hidden too) at RSA-3072;
# a fifth of the samples, about 65 s each on an AMD EPYC Zen 4.
if has_flag avx512ifma && has_flag avx2; then
    REDC_CPU_DISABLE=ifma bash scripts/ct_timing.sh "$(( ${REDC_CT_SAMPLES:-10000} / 5 ))" --bits 2048 --suites batch
    REDC_CPU_DISABLE=ifma,avx512 bash scripts/ct_timing.sh "$(( ${REDC_CT_SAMPLES:-10000} / 5 ))" --bits 3072 --suites batch
fi
# RSA-8192's private operation, whose primes run on other kernels than
# RSA-2048's (the single-modulus IFMA kernel with IFMA, MULX/ADX without):
# 400 samples per class, about 40 s on an AMD EPYC Zen 4 with the key's
# generation.
bash scripts/ct_timing.sh "$(( ${REDC_CT_SAMPLES:-10000} / 25 ))" --bits 8192 --suites private
step "all tests passed"
