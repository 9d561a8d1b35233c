#!/usr/bin/env bash
# Builds OpenSSL's evp_test from Debian's OpenSSL source package, once per
# machine, and prints the source tree's path (holding test/evp_test and
# test/recipes/30-test_evp_data/) on stdout.
#
#   bash scripts/openssl_evp_test.sh 3.0    # Debian bookworm's OpenSSL 3.0.x
#   bash scripts/openssl_evp_test.sh 3.5    # Debian trixie's OpenSSL 3.5.x
#
# The build is cached outside the clone, in $REDC_CACHE_DIR (default
# /var/cache/redc when writable, else ~/.cache/redc), so a rerun on the same
# machine reuses it. Needs deb-src entries for bookworm and trixie (added
# under /etc/apt/sources.list.d/ when run as root and missing), gcc, make
# and perl. Exits non-zero with a one-line reason on stderr when it cannot.
set -euo pipefail
series="${1:?usage: openssl_evp_test.sh 3.0|3.5}"
case "$series" in
    3.0) suite=bookworm ;;
    3.5) suite=trixie ;;
    *) echo "openssl_evp_test.sh: unknown series '$series' (expected 3.0 or 3.5)" >&2; exit 2 ;;
esac
if [ -z "${REDC_CACHE_DIR:-}" ]; then
    if mkdir -p /var/cache/redc 2>/dev/null && [ -w /var/cache/redc ]; then
        REDC_CACHE_DIR=/var/cache/redc
    else
        REDC_CACHE_DIR="$HOME/.cache/redc"
    fi
fi
cache="$REDC_CACHE_DIR/openssl-$series"
mkdir -p "$cache"
# One build at a time per series (parallel test runs share the cache).
exec 9>"$cache/.lock"
flock 9
if [ -f "$cache/tree" ] && [ -x "$(cat "$cache/tree")/test/evp_test" ]; then
    cat "$cache/tree"
    exit 0
fi

for tool in gcc make perl; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "openssl_evp_test.sh: $tool not installed" >&2
        exit 1
    fi
done
# The newest source package of the suite; its .dsc names the orig tarball.
version="$(apt-cache showsrc openssl 2>/dev/null | awk -v s="$series" '
    /^Version: / { v = $2; if (index(v, s ".") == 1) print v }' | sort -V | tail -n 1)" || true
# (apt-cache fails where no deb-src is configured, a fresh machine's case:
# under pipefail that must not end the script before the sources are added.)
if [ -z "$version" ] && [ "$(id -u)" = 0 ]; then
    cat >/etc/apt/sources.list.d/redc-openssl-src.sources <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    apt-get update -qq >&2
    version="$(apt-cache showsrc openssl 2>/dev/null | awk -v s="$series" '
        /^Version: / { v = $2; if (index(v, s ".") == 1) print v }' | sort -V | tail -n 1)" || true
fi
if [ -z "$version" ]; then
    echo "openssl_evp_test.sh: no OpenSSL $series source package (deb-src for $suite missing)" >&2
    exit 1
fi
# A mirror may lack the newest version's files: try each, newest first.
cd "$cache"
got=""
for v in $(apt-cache showsrc openssl | awk -v s="$series" '
        /^Version: / { v = $2; if (index(v, s ".") == 1) print v }' | sort -Vr); do
    if apt-get source -qq --download-only "openssl=$v" >/dev/null 2>&1; then
        got="$v"
        break
    fi
done
if [ -z "$got" ]; then
    echo "openssl_evp_test.sh: apt-get source openssl ($series) failed" >&2
    exit 1
fi
upstream="${got%%-*}"
tree="$cache/openssl-$upstream"
rm -rf "$tree"
tar -xzf "openssl_$upstream.orig.tar.gz"
cd "$tree"
# Static libcrypto (evp_test then loads only the providers the test's
# configuration names); no legacy provider or engines, which the RSA
# stanzas do not use and which lengthen the build.
./Configure no-shared no-legacy no-engine >build.log 2>&1
# The generated headers first: test/evp_test's own rules do not depend on
# them, and the system's <openssl/*.h> would be used in their place.
{ make -j"$(nproc)" build_generated && make -j"$(nproc)" test/evp_test; } >>build.log 2>&1 || {
    tail -n 20 build.log >&2
    echo "openssl_evp_test.sh: building OpenSSL $upstream's evp_test failed" >&2
    exit 1
}
echo "$tree" >"$cache/tree"
echo "$tree"
