#!/usr/bin/env bash
# The main job on a fresh machine: builds redc (release) and the two OpenSSL
# anchors, then runs `redc speed --compare` with the arguments given
# (default: 1024..4096 bits, 2 s per row; e.g. `--bits 2048 --threads 2`).
#
# The anchors measure OpenSSL in process, the way redc is measured
# (crates/redc-openssl-anchor): one linked against the system libcrypto
# (needs libssl-dev and pkg-config), one against the newest OpenSSL, built
# from source by the `openssl-src` crate (needs perl, make and a C compiler;
# the first build takes several minutes on two cores, later runs reuse it in
# target/anchor-vendored). Missing Debian packages are installed when run as
# root. `redc` itself links no OpenSSL. Exits non-zero on failure.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v cc >/dev/null 2>&1 || need_apt+=(gcc)
command -v make >/dev/null 2>&1 || need_apt+=(make)
command -v perl >/dev/null 2>&1 || need_apt+=(perl)
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
if ! pkg-config --exists libcrypto 2>/dev/null; then
    need_apt+=(libssl-dev)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "speed.sh: installing ${need_apt[*]}" >&2
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
    else
        echo "speed.sh: missing ${need_apt[*]}; run as root or install them" >&2
        exit 1
    fi
fi
if ! command -v cargo >/dev/null 2>&1; then
    echo "speed.sh: cargo not found: install Rust 1.89 or newer (rustup)" >&2
    exit 1
fi

echo "speed.sh: building redc and the system OpenSSL anchor" >&2
cargo build --release --locked -p redc-cli -p redc-openssl-anchor
# Its own target directory: cargo would otherwise unify the `vendored`
# feature into the system anchor's build.
echo "speed.sh: building the newest-OpenSSL anchor (OpenSSL from source: minutes the first time)" >&2
cargo build --release --locked -p redc-openssl-anchor --features vendored --target-dir target/anchor-vendored
cp target/anchor-vendored/release/redc-openssl-anchor target/release/redc-openssl-anchor-vendored

exec target/release/redc speed --compare "$@"
