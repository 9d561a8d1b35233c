#!/usr/bin/env bash
# nginx full-handshake rate, without and with the redc OpenSSL provider, in
# one run (issue 13 item 3).
#
#   bash scripts/nginx_handshakes.sh [SECONDS]      (default 10 per case)
#
# For each certificate size (RSA-2048, RSA-4096) and protocol (TLS 1.3,
# TLS 1.2): nginx (Debian package) with one worker pinned to one core
# (REDC_BENCH_SERVER_CPU, default 0), loaded through an openssl.cnf this
# script writes: OpenSSL's default provider only ("without"), or redc plus
# default with default_properties = ?provider=redc ("with"). The load runs
# on the other core (REDC_BENCH_CLIENT_CPU, default 1), loopback only, for a
# fixed time, every connection a full handshake (no session cache, no
# tickets): REDC_BENCH_CLIENTS (default 4) threads of
# scripts/handshake-client (rustls with ring, built here; one HTTP request
# per connection unless REDC_BENCH_REQUEST=0), or with REDC_BENCH_LOAD=s_time as many `openssl s_time
# -new` processes (OpenSSL 3.0's client costs more CPU than the server, so
# it cannot keep the worker busy from one core). Prints
# handshakes per second per case and the ratio with/without. Bounded: about
# 8 x SECONDS plus key generation.
#
# REDC_BENCH_REQUEST=0 makes the rustls clients send close_notify right
# after each handshake instead of an HTTP request (a handshake and nothing
# else, as `openssl s_time -new` without `-www`); the default, 1, keeps the
# request. The two measure different things: report which one ran.
#
# REDC_BENCH_ROUNDS=N (default 1) measures each case N times, alternating
# which configuration runs first (without first in odd rounds, with first in
# even ones, so that drift of the shared machine between the two phases does
# not favour either), prints one row per round ("#k") and then a row of the
# medians over the rounds (of each column, ratios included).
set -euo pipefail
cd "$(dirname "$0")/.."

T=${1:-10}
CLIENTS=${REDC_BENCH_CLIENTS:-4}
SERVER_CPU=${REDC_BENCH_SERVER_CPU:-0}
CLIENT_CPU=${REDC_BENCH_CLIENT_CPU:-1}
SIZES=${REDC_BENCH_SIZES:-2048 4096}
PROTOS=${REDC_BENCH_PROTOS:-tls1_3 tls1_2}
LOAD=${REDC_BENCH_LOAD:-rustls}
ROUNDS=${REDC_BENCH_ROUNDS:-1}
REQUEST=${REDC_BENCH_REQUEST:-1}
case "$REQUEST" in
    1) MODE=request ;;
    0) MODE=close ;;
    *) echo "nginx_handshakes.sh: REDC_BENCH_REQUEST is 0 or 1" >&2; exit 1 ;;
esac
if [ "$LOAD" != rustls ] && [ "$REQUEST" = 0 ]; then
    echo "nginx_handshakes.sh: REDC_BENCH_REQUEST=0 applies to the rustls load only (s_time sends no request anyway)" >&2
    exit 1
fi

for tool in nginx openssl taskset; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "nginx_handshakes.sh: $tool not found (apt-get install nginx openssl util-linux)" >&2
        exit 1
    fi
done

cargo build --release --locked -p redc-provider >&2
CLIENT=$PWD/scripts/handshake-client/target/release/handshake-client
if [ "$LOAD" = rustls ]; then
    (cd scripts/handshake-client && cargo build --release --locked >&2)
fi
W=$(mktemp -d /tmp/redc-nginx-bench.XXXXXX)
NGINX_PID=
cleanup() {
    if [ -n "$NGINX_PID" ]; then kill -TERM "$NGINX_PID" 2>/dev/null || true; wait "$NGINX_PID" 2>/dev/null || true; fi
    rm -rf "$W"
}
trap cleanup EXIT
mkdir -p "$W/providers" "$W/tmp"
ln -s "$PWD/target/release/libredc_provider.so" "$W/providers/redc.so"

cat > "$W/without.cnf" <<CNF
openssl_conf = init
[init]
providers = providers
[providers]
default = default_sect
[default_sect]
activate = 1
CNF
cat > "$W/with.cnf" <<CNF
openssl_conf = init
[init]
providers = providers
alg_section = algs
[providers]
default = default_sect
redc = redc_sect
[default_sect]
activate = 1
[redc_sect]
module = $W/providers/redc.so
activate = 1
[algs]
default_properties = ?provider=redc
CNF

PORT=$((20000 + RANDOM % 20000))
for bits in $SIZES; do
    OPENSSL_CONF=$W/without.cnf openssl genpkey -algorithm RSA -pkeyopt "rsa_keygen_bits:$bits" -out "$W/k$bits.pem" 2>/dev/null
    OPENSSL_CONF=$W/without.cnf openssl req -x509 -new -key "$W/k$bits.pem" -subj /CN=localhost -days 2 \
        -addext subjectAltName=DNS:localhost -addext basicConstraints=critical,CA:FALSE -out "$W/c$bits.pem"
    cat > "$W/nginx$bits.conf" <<CONF
daemon off;
master_process on;
worker_processes 1;
worker_cpu_affinity $(printf '%x' $((1 << SERVER_CPU)));
pid $W/nginx.pid;
error_log $W/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $W/tmp/body;
    proxy_temp_path $W/tmp/proxy;
    fastcgi_temp_path $W/tmp/fastcgi;
    uwsgi_temp_path $W/tmp/uwsgi;
    scgi_temp_path $W/tmp/scgi;
    server {
        listen 127.0.0.1:$PORT ssl;
        ssl_certificate $W/c$bits.pem;
        ssl_certificate_key $W/k$bits.pem;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_session_cache off;
        ssl_session_tickets off;
        keepalive_timeout 0;
        location / { return 200 "redc\n"; }
    }
}
CONF
done

start_nginx() { # cnf bits
    OPENSSL_CONF=$1 nginx -p "$W" -c "$W/nginx$2.conf" -e "$W/error.log" &
    NGINX_PID=$!
    for _ in $(seq 100); do
        if echo | openssl s_client -connect "127.0.0.1:$PORT" -CAfile "$W/c$2.pem" -verify_return_error -brief \
            </dev/null 2>&1 | grep -q "Verification: OK"; then
            return 0
        fi
        sleep 0.05
    done
    echo "nginx_handshakes.sh: nginx did not serve a verified handshake" >&2
    cat "$W/error.log" >&2
    exit 1
}

stop_nginx() {
    kill -TERM "$NGINX_PID"
    wait "$NGINX_PID" 2>/dev/null || true
    NGINX_PID=
}

# The nginx worker's process id (the master's one child).
worker_pid() {
    pgrep -P "$NGINX_PID" | head -1
}

# CPU time so far, in nanoseconds (scheduler statistics), of the worker
# whose pid is given.
worker_ns() { # pid
    awk '{ print $1 }' "/proc/$1/schedstat"
}

# One case: CLIENTS s_time clients for T seconds. Prints "rate per_cpu busy":
# handshakes per second of wall time, handshakes per second of the
# worker's CPU time, and the worker's share of its core.
measure() { # proto
    local start end total=0 t0 t1 w0 w1
    w0=$(worker_pid)
    t0=$(worker_ns "$w0")
    start=$(date +%s.%N)
    if [ "$LOAD" = rustls ]; then
        taskset -c "$CLIENT_CPU" "$CLIENT" "127.0.0.1:$PORT" "$T" "$CLIENTS" "${1/tls1_/tls1}" "$MODE" > "$W/st.1"
        total=$(cut -d' ' -f1 "$W/st.1")
    else
        for i in $(seq "$CLIENTS"); do
            taskset -c "$CLIENT_CPU" openssl s_time -connect "127.0.0.1:$PORT" -new -"$1" -time "$T" \
                > "$W/st.$i" 2>&1 &
        done
        wait $(jobs -p | grep -v "^$NGINX_PID\$")
        for i in $(seq "$CLIENTS"); do
            n=$(sed -n 's/^\([0-9]*\) connections in [0-9.]* real seconds.*/\1/p' "$W/st.$i" | head -1)
            total=$((total + ${n:-0}))
        done
    fi
    end=$(date +%s.%N)
    # A worker that died and was replaced would have closed connections
    # without an alert (counted by the handshake-only load) and reset its
    # CPU time: the case is void.
    w1=$(worker_pid)
    if [ "$w0" != "$w1" ]; then
        echo "nginx_handshakes.sh: the nginx worker changed during the case ($w0 -> $w1)" >&2
        exit 1
    fi
    t1=$(worker_ns "$w1")
    awk -v n="$total" -v s="$start" -v e="$end" -v c="$((t1 - t0))" \
        'BEGIN { w = e - s; cpu = c / 1e9; printf "%.1f %.1f %.0f%%\n", n / w, (cpu > 0 ? n / cpu : 0), 100 * cpu / w }'
}

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
fam=$(grep -m1 '^cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
model=$(grep -m1 '^model\s*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
echo "CPU: $cpu (family $fam model $model), $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "nginx $(nginx -v 2>&1 | sed 's/.*nginx\///'), $(openssl version); load: $CLIENTS $LOAD clients on CPU $CLIENT_CPU, nginx worker on CPU $SERVER_CPU, ${T} s per case"
if [ "$LOAD" = rustls ]; then
    if [ "$MODE" = request ]; then
        echo "each connection: a full handshake, then one HTTP/1.0 request and its response"
    else
        echo "each connection: a full handshake, then close_notify (no request; REDC_BENCH_REQUEST=0)"
    fi
fi
echo
echo "Handshakes per second of wall time, and per second of the nginx worker's CPU time (its core's"
echo "capacity, robust to the shared machine's noise); busy = the worker's share of its core."
echo
echo "| certificate | protocol | without: hs/s | hs/CPU-s | busy | with redc: hs/s | hs/CPU-s | busy | ratio (hs/s) | ratio (hs/CPU-s) |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
run_without() { # bits proto
    start_nginx "$W/without.cnf" "$1"
    read -r without without_cpu without_busy < <(measure "$2")
    stop_nginx
}
run_with() { # bits proto
    start_nginx "$W/with.cnf" "$1"
    worker=$(worker_pid)
    if ! grep -q libredc_provider "/proc/$worker/maps"; then
        echo "nginx_handshakes.sh: the nginx worker has not loaded the redc provider" >&2
        exit 1
    fi
    read -r with with_cpu with_busy < <(measure "$2")
    stop_nginx
}
# The median of the numbers on stdin (the mean of the middle two for an even count).
median() {
    sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
for bits in $SIZES; do
    for proto in $PROTOS; do
        : > "$W/rounds"
        for round in $(seq "$ROUNDS"); do
            if [ $((round % 2)) -eq 1 ]; then
                run_without "$bits" "$proto"
                run_with "$bits" "$proto"
            else
                run_with "$bits" "$proto"
                run_without "$bits" "$proto"
            fi
            ratio=$(awk -v a="$with" -v b="$without" 'BEGIN { printf "%.2fx", a / b }')
            ratio_cpu=$(awk -v a="$with_cpu" -v b="$without_cpu" 'BEGIN { printf "%.2fx", a / b }')
            label="RSA-$bits"
            [ "$ROUNDS" -gt 1 ] && label="RSA-$bits #$round"
            echo "| $label | ${proto/tls1_/TLS 1.} | $without | $without_cpu | $without_busy | $with | $with_cpu | $with_busy | $ratio | $ratio_cpu |"
            echo "$without $without_cpu ${without_busy%\%} $with $with_cpu ${with_busy%\%} ${ratio%x} ${ratio_cpu%x}" >> "$W/rounds"
        done
        if [ "$ROUNDS" -gt 1 ]; then
            m=()
            for col in 1 2 3 4 5 6 7 8; do
                m+=("$(cut -d' ' -f"$col" "$W/rounds" | median)")
            done
            printf '| RSA-%s median of %s | %s | %.1f | %.1f | %.0f%% | %.1f | %.1f | %.0f%% | %.2fx | %.2fx |\n' \
                "$bits" "$ROUNDS" "${proto/tls1_/TLS 1.}" "${m[@]}"
        fi
    done
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
