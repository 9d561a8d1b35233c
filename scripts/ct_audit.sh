#!/usr/bin/env bash
# Constant-time audit of the RSA private operation with valgrind memcheck as
# a taint tracker ("ctgrind"). Builds crates/redc/examples/ct_audit.rs in
# the `ct` profile (release code with debug info), runs it under memcheck (portable kernels,
# REDC_FORCE_PORTABLE=1, and the default dispatch), and classifies every
# report of the private-op phase:
#   intended   - the branch sits on a line that calls Mask::leak_bool (a
#                deliberate declassification), or at a documented public-
#                length site (the message a decoder returns after its one
#                final decision);
#   unexpected - anything else: printed with its stack; exit status 1.
# Reports of the setup phase (key validation and engine setup on secret
# primes) are listed by site but never fail the run. Two sanity checks: the
# raw_private results must be secret (undefined) before the harness
# declassifies them, and the positive control (a variable-time exponent
# scan on a secret) must be reported; otherwise exit 2. See
# docs/CONSTANT_TIME.md for the method and the verdict on every site.
#
# Usage: scripts/ct_audit.sh [portable|default]...   (default: both)
# Env:   CT_AUDIT_BITS (default "2048 1024"), CT_AUDIT_REPS (default 2),
#        CARGO_TARGET_DIR (default: target), CT_AUDIT_OUT (logs; default
#        $CARGO_TARGET_DIR/ct_audit).
# Exit:  0 clean, 1 unexpected secret-dependent branch/address in the
#        private-op phase, 2 the audit itself could not run.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"
out="${CT_AUDIT_OUT:-$target/ct_audit}"
mkdir -p "$out"
modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=(portable default)

command -v valgrind >/dev/null || { echo "ct_audit: valgrind not found (apt-get install valgrind)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "ct_audit: python3 not found" >&2; exit 2; }

start=$(date +%s)
echo "ct_audit: building the harness (profile ct: release code, debug info)"
cargo build --quiet --profile ct --example ct_audit -p redc
bin="$target/ct/examples/ct_audit"

# One valgrind process per (mode, key size): memcheck prints each distinct
# error once per process (errors whose innermost four frames match are
# merged), so a second key size in the same process would hide its reports.
status=0
bits_list=(${CT_AUDIT_BITS:-2048 1024})
for mode in "${modes[@]}"; do
  case "$mode" in
    portable) envs=(REDC_FORCE_PORTABLE=1) ;;
    default) envs=(REDC_FORCE_PORTABLE=0) ;;
    *) echo "ct_audit: unknown mode $mode (portable|default)" >&2; exit 2 ;;
  esac
  for bits in "${bits_list[@]}"; do
    log="$out/$mode-$bits.log"
    echo
    echo "ct_audit: [$mode, $bits bits] valgrind memcheck; log $log"
    t0=$(date +%s)
    rc=0
    env "${envs[@]}" CT_AUDIT_BITS="$bits" valgrind --tool=memcheck --error-exitcode=0 \
        --track-origins=yes --num-callers=30 --fullpath-after= "$bin" \
        >"$out/$mode-$bits.stdout" 2>"$log" || rc=$?
    echo "ct_audit: [$mode, $bits bits] valgrind exit $rc after $(( $(date +%s) - t0 )) s; $(grep -m1 '^ct_audit: valgrind=' "$log" || true)"
    mrc=0
    python3 - "$log" "$mode, $bits bits" "$rc" "$root" <<'PY' || mrc=$?
import collections
import re
import sys

log, mode, rc, root = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]

# Documented public-length sites: (function, source-line regex, reason). The
# report's innermost redc frame must be in that function on a line matching.
PUBLIC_LENGTH = [
    ("eme_oaep_decode", r"\.\.msg_len\]",
     "OAEP: the message returned after the one final decision; its length is public"),
    ("eme_pkcs1v15_decode_implicit", r"Plaintext::new\(buf, k - start\)",
     "implicit rejection: setting the returned message's length (public once returned; "
     "Plaintext::new's clamp to k; the k-byte buffer is returned and wiped whole)"),
]

VG = re.compile(r"^==(\d+)== ?(.*)$")
FRAME = re.compile(r"^\s+(?:at|by) 0x[0-9A-Fa-f]+: (.*?)(?: \((.*)\))?$")
KIND = re.compile(
    r"^(Conditional jump or move depends on uninitialised value\(s\)"
    r"|Use of uninitialised value of size \d+"
    r"|Syscall param .*uninitialised.*"
    r"|Invalid (?:read|write|free).*"
    r"|Mismatched free.*|Source and destination overlap.*"
    r"|Argument .* of function .* has a fishy.*)$")

phase, errors, counts, fatal, taint = "startup", [], {}, [], []
cur, section = None, "frames"
for raw in open(log, errors="replace"):
    raw = raw.rstrip("\n")
    # A harness line may be cut by a report written to the same stderr.
    m = re.search(r"==\d+== ", raw)
    parts = [raw] if not m or m.start() == 0 else [raw[: m.start()], raw[m.start():]]
    for line in parts:
        v = VG.match(line)
        if not v:
            if p := re.match(r"^=== phase: (\S+) bits=(\d+)", line):
                phase, cur = f"{p.group(1)}:{p.group(2)}", None
            elif p := re.match(r"^=== end: (\S+) bits=(\d+) errors=(\d+)", line):
                counts[f"{p.group(1)}:{p.group(2)}"] = int(p.group(3))
                phase, cur = f"after-{p.group(1)}:{p.group(2)}", None
            elif p := re.match(r"^=== taint: .*?at least (\d+) of (\d+) bytes", line):
                taint.append((int(p.group(1)), int(p.group(2))))
            elif line.startswith("vex amd64->IR") or "unhandled instruction" in line:
                fatal.append(line)
            continue
        text = v.group(2)
        if not text.strip():
            cur = None
            continue
        if re.match(r"^(Process terminating|valgrind: Unrecognised instruction|Your program just tried)", text):
            fatal.append(text)
        if KIND.match(text):
            cur = dict(phase=phase, kind=text, frames=[], origin=[], origin_kind="")
            errors.append(cur)
            section = "frames"
            continue
        if cur is None:
            continue
        if o := re.match(r"^\s+(Uninitialised value was created by .*)$", text):
            cur["origin_kind"], section = o.group(1), "origin"
            continue
        if f := FRAME.match(text):
            cur[section].append((f.group(1), f.group(2) or ""))

src_cache = {}
def source_line(loc):
    m = re.match(r"^(.*):(\d+)$", loc)
    if not m:
        return ""
    path, n = m.group(1), int(m.group(2))
    if path not in src_cache:
        try:
            src_cache[path] = open(path, errors="replace").read().split("\n")
        except OSError:
            src_cache[path] = []
    lines = src_cache[path]
    return lines[n - 1].strip() if 0 < n <= len(lines) else ""

def short(func):
    while re.search(r"<[^<>]*>", func):
        func = re.sub(r"<[^<>]*>", "", func)
    return func.split("::")[-1] if "::" in func and not func.endswith("}}") else func

def rel(loc):
    return loc[len(root) + 1:] if loc.startswith(root + "/") else loc

REDC = "/crates/redc/src/"
def redc_frames(err):
    return [(f, loc) for f, loc in err["frames"] if REDC in loc]

def classify(err):
    frames = redc_frames(err)
    if not frames:
        return "unexpected", "no redc frame in the stack"
    func, loc = frames[0]
    text = source_line(loc)
    if "leak_bool()" in text:
        return "intended", "leak_bool: " + text
    for fname, pat, why in PUBLIC_LENGTH:
        if fname in func and re.search(pat, text):
            return "intended", "public length: " + why
    return "unexpected", text

def signature(err):
    """The innermost redc frame: reports are grouped by it."""
    frames = redc_frames(err) or err["frames"]
    return " < ".join(f"{short(f)} ({rel(l)})" for f, l in frames[:1])

def callers(err):
    frames = redc_frames(err)
    return " < ".join(short(f) for f, l in frames[1:4])

if fatal:
    print(f"ct_audit: [{mode}] valgrind could not run the harness to the end:")
    for line in fatal[:5]:
        print("    " + line)
    if mode.startswith("default"):
        sys.exit(3)  # e.g. AVX-512 instructions valgrind does not decode
if rc != 0 or "private-op:" not in " ".join(counts):
    print(f"ct_audit: [{mode}] incomplete run (exit {rc}; phases seen: {sorted(counts)})")
    sys.exit(2)

# Sanity: the secrets reached the results, and a known variable-time call
# on a secret was reported. Without both the audit proves nothing.
control = sum(n for ph, n in counts.items() if ph.startswith("control:"))
if not taint or min(t[0] for t in taint) == 0 or control == 0:
    print(f"ct_audit: [{mode}] SANITY FAILED: taint in results {taint}, control reports {control}")
    sys.exit(2)
print(f"ct_audit: [{mode}] sanity: raw_private results {min(t[0] for t in taint)}/{taint[0][1]} bytes secret "
      f"before declassification; positive control reported {control} times")
print(f"ct_audit: [{mode}] memcheck errors per phase (repeats included):")
for ph in counts:
    shown = sum(1 for e in errors if e["phase"] == ph)
    print(f"    {ph:<18} {counts[ph]:>6} counted, {shown:>4} distinct reports printed")

by_site = collections.OrderedDict()
for e in errors:
    if e["phase"].startswith("private-op:"):
        verdict, why = classify(e)
    elif e["phase"].startswith("control:"):
        continue
    elif e["phase"].startswith("setup:"):
        verdict, why = "setup", source_line(redc_frames(e)[0][1]) if redc_frames(e) else ""
    else:
        verdict, why = "unexpected-phase", ""
    key = (e["phase"].split(":")[0], verdict, e["kind"].split(" depends")[0], signature(e))
    entry = by_site.setdefault(key, dict(n=0, why=why, err=e, bits=set(), callers=[]))
    entry["n"] += 1
    entry["bits"].add(e["phase"].split(":")[1])
    if callers(e) and callers(e) not in entry["callers"]:
        entry["callers"].append(callers(e))

def dump(title, want):
    rows = [(k, v) for k, v in by_site.items() if want(k)]
    print(f"ct_audit: [{mode}] {title}: {len(rows)} site(s)")
    for (ph, verdict, kind, sig), v in rows:
        print(f"  - {kind} [{','.join(sorted(v['bits']))} bits, {v['n']} report(s)]")
        print(f"      at {sig}")
        for c in v["callers"][:6]:
            print(f"         < {c}")
        if v["why"]:
            print(f"      {v['why'][:160]}")
    return rows

dump("setup phase (expected: prime lengths, validation verdicts)", lambda k: k[0] == "setup")
dump("private-op, intended disclosures", lambda k: k[0] == "private-op" and k[1] == "intended")
bad = dump("private-op, UNEXPECTED", lambda k: k[0] == "private-op" and k[1] == "unexpected")
for (ph, verdict, kind, sig), v in bad:
    e = v["err"]
    print(f"  >> {e['kind']}  [{e['phase']}]")
    for f, loc in e["frames"]:
        if "lang_start" in f or "/library/std/src/rt.rs" in loc or f == "main":
            break
        print(f"       {short(f)}  {rel(loc)}")
    print(f"     {e['origin_kind']}: " + " <- ".join(f"{short(f)} ({rel(l)})" for f, l in e["origin"][1:4]))
other = [k for k in by_site if k[1] == "unexpected-phase"]
harness = 0
for k in other:
    harness += 1
    print(f"ct_audit: [{mode}] report outside setup/private-op ({k[0]}): {k[2]} at {k[3]}")
if other:
    print(f"ct_audit: [{mode}] the harness leaks taint or memcheck found a plain bug: fix before trusting the audit")
if bad:
    print(f"ct_audit: [{mode}] FAIL: {len(bad)} unexpected private-op site(s)")
    sys.exit(1)
if other:
    sys.exit(2)
print(f"ct_audit: [{mode}] PASS: only intended disclosures in the private-op phase")
PY
    if [ "$mrc" -eq 3 ]; then
      echo "ct_audit: [$mode, $bits bits] NOT AUDITED: valgrind cannot run this path; the portable run is the audit"
    elif [ "$mrc" -gt "$status" ]; then
      status=$mrc
    fi
  done
done
# Classification reads the source lines the reports point at: they must be
# the lines the binary was built from.
changed=$(find crates/redc/src crates/redc/examples/ct_audit.rs -newer "$bin" -name '*.rs' | head -5)
if [ -n "$changed" ]; then
  echo "ct_audit: sources changed during the audit (rerun): $changed"
  [ "$status" -ne 0 ] || status=2
fi
echo "ct_audit: finished in $(( $(date +%s) - start )) s, exit $status"
exit "$status"
