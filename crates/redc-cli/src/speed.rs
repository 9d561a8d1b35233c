//! `redc speed`: RSA sign and verify throughput on in-memory keys, like
//! `openssl speed rsa`, optionally beside OpenSSL on the same keys in the
//! same run.
//!
//! sign = SHA-256 of a 64-byte message + RSASSA-PKCS1-v1_5 with blinding and
//! the fault check, as a user calls it; verify = the same hash + the public
//! operation with e = 65537 + the encoding check. Method (`measure.rs`):
//! ~50 ms batches for `--seconds` per row after a warm-up, on `--threads`
//! threads at once; the figure is the median round's aggregate ops/s, with
//! the slowest and fastest rounds as the spread.
//!
//! `--compare` adds, on the same key and with the same method and threads,
//! the OpenSSL anchors, measured in turn with redc over `--rounds` rounds
//! (`rounds.rs`: the ratio is taken round by round; its median and range
//! are the verdict printed per size): `redc-openssl-anchor` (crates/redc-openssl-anchor),
//! which measures in process the libcrypto it links, built against the
//! system OpenSSL and, as `redc-openssl-anchor-vendored`, against the newest
//! OpenSSL from `openssl-src`. They are found next to the `redc` executable
//! or through `REDC_OPENSSL_ANCHORS` (paths separated by `:`); redc itself
//! links no OpenSSL. `bash scripts/speed.sh` builds all three and runs this.
//! `--plot FILE.svg` draws ops/s against key size, one line per
//! implementation and operation.

use crate::measure::{MESSAGE, Spread, WARM_UP, measure};
use crate::rounds::{self, Ratio};
use redc::hash::HashAlg;
use redc::keyfile::{Encoding, PrivateKeyFormat};
use redc::rsa::{keygen, os_rng};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

/// Arguments of `redc speed`.
#[derive(clap::Args, Debug)]
pub struct SpeedArgs {
    /// Key sizes in bits, comma separated.
    #[arg(long, value_delimiter = ',', default_value = "1024,2048,3072,4096")]
    bits: Vec<usize>,
    /// Seconds per row (sign and verify, each implementation), split over
    /// the rounds.
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    /// Rounds per key size: each round measures redc and then each OpenSSL
    /// anchor (the order flipping every round) for `--seconds`/ROUNDS, and
    /// the ratios are taken round by round.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u16).range(1..=100))]
    rounds: u16,
    /// Print a JSON array instead of the table.
    #[arg(long)]
    json: bool,
    /// Measure OpenSSL on the same keys in the same run (the anchor
    /// binaries), and print the ratios.
    #[arg(long)]
    compare: bool,
    /// Add "sign-batch" rows: signatures per second through the batch path
    /// (eight-lane IFMA kernel, four signatures per run).
    #[arg(long)]
    batch: bool,
    /// Threads running each operation at once (like `openssl speed -multi N`);
    /// the figures are aggregate ops/s. The anchors run as many.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: u16,
    /// Also draw ops/s against key size (log scale) as an SVG file.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<String>,
}

/// Digests per batch call in the "sign-batch" rows.
const BATCH_LEN: usize = 32;

/// Rounds spreading by more than this fraction of the median get a warning.
const SPREAD_WARNING: f64 = 0.10;

/// An OpenSSL anchor binary and what it reported about itself.
struct Anchor {
    path: PathBuf,
    /// "system" (JSON fields openssl_*) or "newest" (newest_openssl_*).
    role: &'static str,
    version: String,
    method: String,
}

/// One anchor's figures for a key size.
#[derive(Clone, Copy)]
struct AnchorRun {
    sign: Spread,
    verify: Spread,
}

struct Row {
    bits: usize,
    op: &'static str,
    redc: Spread,
    /// Per anchor (same order as the anchors), the matching figure and the
    /// per-round ratio of redc's to it.
    anchors: Vec<Option<(Spread, Ratio)>>,
}

const ANCHOR_SYSTEM: &str = "redc-openssl-anchor";
const ANCHOR_NEWEST: &str = "redc-openssl-anchor-vendored";
const BUILD_HINT: &str = "`bash scripts/speed.sh` builds redc and both anchors (system and newest OpenSSL) and runs the comparison";

/// The anchors to run: `REDC_OPENSSL_ANCHORS` or the two names next to redc.
fn find_anchors() -> Result<Vec<Anchor>, String> {
    if std::env::var_os("REDC_PYTHON").is_some() {
        eprintln!(
            "redc speed: REDC_PYTHON is no longer used: the newest OpenSSL is measured in process by {ANCHOR_NEWEST}"
        );
    }
    let candidates: Vec<(PathBuf, bool)> = match std::env::var_os("REDC_OPENSSL_ANCHORS") {
        Some(list) => std::env::split_paths(&list)
            .filter(|p| !p.as_os_str().is_empty())
            .map(|p| (p, true))
            .collect(),
        None => {
            let dir = std::env::current_exe()
                .ok()
                .and_then(|p| p.parent().map(PathBuf::from))
                .unwrap_or_default();
            vec![(dir.join(ANCHOR_SYSTEM), false), (dir.join(ANCHOR_NEWEST), false)]
        }
    };
    let mut anchors: Vec<Anchor> = Vec::new();
    for (path, named) in candidates {
        if !path.is_file() {
            let why = if named {
                "named in REDC_OPENSSL_ANCHORS"
            } else {
                "next to redc"
            };
            eprintln!(
                "redc speed: no OpenSSL anchor at {} ({why}): {BUILD_HINT}",
                path.display()
            );
            continue;
        }
        let v = run_anchor(&path, &["--version"], None).map_err(|e| format!("{}: {e}", path.display()))?;
        let version = v["version"].as_str().unwrap_or("OpenSSL ?").to_string();
        let method = v["method"].as_str().unwrap_or("?").to_string();
        let vendored = v["build"].as_str().is_some_and(|b| b.contains("vendored"));
        anchors.push(Anchor {
            path,
            role: "",
            version,
            method,
        });
        anchors.last_mut().expect("pushed").role = if vendored { "newest" } else { "system" };
    }
    if anchors.is_empty() {
        return Err(format!("--compare: no OpenSSL anchor found; {BUILD_HINT}"));
    }
    // The system build first, then the newest; at most one of each role
    // keeps the JSON fields unambiguous.
    anchors.sort_by_key(|a| a.role != "system");
    anchors.dedup_by_key(|a| a.role);
    Ok(anchors)
}

/// Runs an anchor binary; its stdout is one JSON object.
fn run_anchor(path: &PathBuf, args: &[&str], stdin: Option<&[u8]>) -> Result<serde_json::Value, String> {
    use std::process::{Command, Stdio};
    let mut child = Command::new(path)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut input = child.stdin.take().expect("piped");
    if let Some(data) = stdin {
        input.write_all(data).map_err(|e| e.to_string())?;
    }
    drop(input);
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr)
            .lines()
            .last()
            .unwrap_or("failed")
            .to_string());
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("unexpected output: {e}"))
}

impl Anchor {
    fn measure(&self, pkcs8_der: &[u8], seconds: f64, threads: usize) -> Result<AnchorRun, String> {
        let v = run_anchor(
            &self.path,
            &[
                "--seconds",
                &seconds.to_string(),
                "--threads",
                &threads.to_string(),
            ],
            Some(pkcs8_der),
        )?;
        let spread = |o: &serde_json::Value| -> Result<Spread, String> {
            match (
                o["median"].as_f64(),
                o["min"].as_f64(),
                o["max"].as_f64(),
                o["batches"].as_u64(),
            ) {
                (Some(median), Some(min), Some(max), Some(b)) if median > 0.0 => Ok(Spread {
                    median,
                    min,
                    max,
                    batches: b as usize,
                }),
                _ => Err("unexpected output".into()),
            }
        };
        Ok(AnchorRun {
            sign: spread(&v["sign"])?,
            verify: spread(&v["verify"])?,
        })
    }

    /// "OpenSSL 3.0.13" from "OpenSSL 3.0.13 30 Jan 2024".
    fn short(&self) -> String {
        self.version
            .split_whitespace()
            .take(2)
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Run `redc speed`; returns the exit status.
pub fn run(args: SpeedArgs) -> i32 {
    if let Some(&bad) = args.bits.iter().find(|&&b| !(1024..=16384).contains(&b)) {
        return crate::fail("speed", format!("--bits {bad}: sizes from 1024 to 16384 bits"));
    }
    if !(args.seconds > 0.0 && args.seconds <= 3600.0) {
        return crate::fail("speed", "--seconds must be above 0 and at most 3600");
    }
    if let Some(p) = &args.plot
        && (p == "-" || p.is_empty())
    {
        return crate::fail("speed", "--plot needs a file name (FILE.svg)");
    }
    let threads = usize::from(args.threads);
    let anchors = if args.compare {
        match find_anchors() {
            Ok(a) => a,
            Err(e) => return crate::fail("speed", e),
        }
    } else {
        Vec::new()
    };
    let progress = Progress::new();
    let mut rows = Vec::new();
    for &bits in &args.bits {
        progress.say(&format!("{bits} bits: generating a key"));
        let key = match keygen::generate(bits, 65537, &mut os_rng()) {
            Ok(k) => k,
            Err(e) => return crate::fail("speed", e),
        };
        let pkcs8 = match key.to_key_file(PrivateKeyFormat::Pkcs8, Encoding::Der) {
            Ok(der) => der,
            Err(e) => return crate::fail("speed", e),
        };
        let key = &key;
        let sig = key
            .sign_pkcs1v15(&mut os_rng(), HashAlg::Sha256, &HashAlg::Sha256.digest(MESSAGE))
            .expect("sign");
        let public = &key.to_public_key();
        let sig = &sig;
        let rounds = usize::from(args.rounds);
        let seconds = args.seconds / rounds as f64;
        let (mut sign, mut verify, mut batch) = (Vec::new(), Vec::new(), Vec::new());
        // Per anchor, per round; an anchor that fails is not asked again.
        let mut runs: Vec<Vec<Option<AnchorRun>>> = vec![Vec::new(); anchors.len()];
        let mut failed = vec![false; anchors.len()];
        for round in 0..rounds {
            let at = if rounds > 1 {
                format!(" (round {}/{rounds})", round + 1)
            } else {
                String::new()
            };
            let mut measure_anchors = || {
                for (i, anchor) in anchors.iter().enumerate() {
                    if failed[i] {
                        runs[i].push(None);
                        continue;
                    }
                    progress.say(&format!("{bits} bits: {}{at}", anchor.short()));
                    match anchor.measure(&pkcs8, seconds, threads) {
                        Ok(r) => runs[i].push(Some(r)),
                        Err(e) => {
                            eprintln!("redc speed: {}: {e} (skipped)", anchor.path.display());
                            failed[i] = true;
                            runs[i].push(None);
                        }
                    }
                }
            };
            // The order flips every round, so that neither side always
            // follows the other.
            if round % 2 == 1 {
                measure_anchors();
            }
            progress.say(&format!("{bits} bits: redc sign{at}"));
            sign.push(measure(seconds, threads, || {
                || {
                    let digest = HashAlg::Sha256.digest(MESSAGE);
                    let sig = key
                        .sign_pkcs1v15(&mut os_rng(), HashAlg::Sha256, &digest)
                        .expect("sign");
                    std::hint::black_box(sig);
                }
            }));
            progress.say(&format!("{bits} bits: redc verify{at}"));
            verify.push(measure(seconds, threads, || {
                || {
                    let digest = HashAlg::Sha256.digest(MESSAGE);
                    public
                        .verify_pkcs1v15(HashAlg::Sha256, &digest, sig)
                        .expect("verify");
                }
            }));
            if args.batch {
                progress.say(&format!("{bits} bits: redc sign-batch{at}"));
                batch.push(
                    measure(seconds, threads, || {
                        || {
                            let digests: Vec<Vec<u8>> = (0..BATCH_LEN)
                                .map(|i| HashAlg::Sha256.digest(&[&MESSAGE[..], &[i as u8]].concat()))
                                .collect();
                            let refs: Vec<&[u8]> = digests.iter().map(|d| &d[..]).collect();
                            for sig in key.sign_pkcs1v15_batch(&mut os_rng(), HashAlg::Sha256, &refs) {
                                std::hint::black_box(sig.expect("sign"));
                            }
                        }
                    })
                    .scaled(BATCH_LEN as f64),
                );
            }
            if round % 2 == 0 {
                measure_anchors();
            }
        }
        // Each anchor's figure for an operation, beside redc's rounds of
        // it (sign-batch is compared with the anchors' one-at-a-time sign).
        let compared = |redc: &[Spread], f: fn(&AnchorRun) -> Spread| -> Vec<Option<(Spread, Ratio)>> {
            runs.iter()
                .map(|r| {
                    let per_round: Vec<Option<Spread>> = r.iter().map(|x| x.as_ref().map(f)).collect();
                    let measured: Vec<Spread> = per_round.iter().flatten().copied().collect();
                    Some((rounds::merge(&measured)?, rounds::ratio(redc, &per_round)?))
                })
                .collect()
        };
        let merged = |v: &[Spread]| rounds::merge(v).expect("at least one round");
        rows.push(Row {
            bits,
            op: "sign",
            redc: merged(&sign),
            anchors: compared(&sign, |r| r.sign),
        });
        rows.push(Row {
            bits,
            op: "verify",
            redc: merged(&verify),
            anchors: compared(&verify, |r| r.verify),
        });
        if !batch.is_empty() {
            rows.push(Row {
                bits,
                op: "sign-batch",
                redc: merged(&batch),
                anchors: compared(&batch, |r| r.sign),
            });
        }
    }
    progress.done();
    let kernel = redc::exp::kernel_name();
    let family = redc::arch::select::KernelFamily::chosen().name();
    let disabled: Vec<&str> = redc::arch::select::cpu_disabled()
        .iter()
        .map(|f| f.name())
        .collect();
    let cpu = redc::arch::select::cpu_model();
    let redc_method = format!(
        "in process: RsaPrivateKey::sign_pkcs1v15 / RsaPublicKey::verify_pkcs1v15 (SHA-256, PKCS#1 v1.5, blinding and fault check), kernel {kernel}"
    );
    // Every figure's spread across its batches, redc's and the anchors'
    // (the anchors' sign figure once per size: the sign-batch rows repeat it).
    let mut spreads = Vec::new();
    for r in &rows {
        let named = std::iter::once(("redc".to_string(), Some(r.redc))).chain(
            anchors
                .iter()
                .zip(&r.anchors)
                .map(|(a, s)| (a.short(), s.map(|s| s.0))),
        );
        for (name, s) in named {
            if let Some(s) = s
                && !(r.op == "sign-batch" && name != "redc")
            {
                spreads.push((format!("{} bits {} {name}", r.bits, r.op), s.relative_spread()));
            }
        }
    }
    let spread_warning = rounds::spread_summary(&spreads, SPREAD_WARNING);
    // One verdict line per size, against the newest OpenSSL measured.
    let newest = anchors.len().checked_sub(1);
    let verdicts: Vec<String> = match newest {
        None => Vec::new(),
        Some(i) => args
            .bits
            .iter()
            .filter_map(|&bits| {
                let ops: Vec<(&str, Ratio)> = rows
                    .iter()
                    .filter(|r| r.bits == bits)
                    .filter_map(|r| r.anchors[i].map(|(_, ratio)| (r.op, ratio)))
                    .collect();
                (!ops.is_empty()).then(|| rounds::verdict(bits, &anchors[i].short(), &ops))
            })
            .collect(),
    };
    if let Some(path) = &args.plot {
        let mut series = Vec::new();
        let mut names = vec![("redc".to_string(), None)];
        names.extend(anchors.iter().enumerate().map(|(i, a)| (a.short(), Some(i))));
        let ops: &[&str] = if args.batch {
            &["sign", "sign-batch", "verify"]
        } else {
            &["sign", "verify"]
        };
        for (name, idx) in &names {
            for &op in ops {
                if op == "sign-batch" && idx.is_some() {
                    continue;
                }
                let points: Vec<(f64, f64)> = rows
                    .iter()
                    .filter(|r| r.op == op)
                    .filter_map(|r| {
                        let s = match idx {
                            None => Some(r.redc),
                            Some(i) => r.anchors[*i].map(|a| a.0),
                        };
                        s.map(|s| (r.bits as f64, s.median))
                    })
                    .collect();
                if !points.is_empty() {
                    series.push(crate::plot::Series {
                        label: format!("{name} {op}"),
                        points,
                    });
                }
            }
        }
        let title = format!(
            "RSA PKCS#1 v1.5 SHA-256, {threads} thread{}: {cpu}",
            if threads == 1 { "" } else { "s" }
        );
        if let Err(e) =
            crate::plot::line_chart(path, &title, "key size (bits)", "operations per second", &series)
        {
            return crate::fail("speed", e);
        }
    }
    // The dual IFMA kernel's squaring, for the rows that run it: sign (the
    // CRT halves). Verify runs the single-modulus kernel, sign-batch the
    // eight-lane one; both square as a product.
    let squaring = |r: &Row| {
        (r.op == "sign")
            .then(|| {
                redc::arch::select::ifma_squaring(redc::arch::portable52::digits_for_bits(r.bits.div_ceil(2)))
            })
            .flatten()
    };
    // Whether that kernel runs quotient-pipelined (by the primes' size).
    let pipelined = |r: &Row| redc::arch::select::ifma_pipelined(r.bits.div_ceil(2));
    // Whether its quotient chain runs in xmm registers (plain runs, by CPU).
    let xmm_chain = |r: &Row| !pipelined(r) && redc::arch::select::ifma_xmm_chain();
    let op_width = if args.batch { 11 } else { 7 };
    if args.json {
        let json: Vec<_> = rows
            .iter()
            .map(|r| {
                let mut o = serde_json::json!({
                    "bits": r.bits, "op": r.op, "ops_per_sec": round1(r.redc.median),
                    "us_per_op": round1(1e6 * threads as f64 / r.redc.median), "kernel": kernel,
                    "kernel_family": family, "cpu_disabled": disabled, "cpu": cpu,
                    "threads": threads, "min_ops_per_sec": round1(r.redc.min),
                    "max_ops_per_sec": round1(r.redc.max), "batches": r.redc.batches,
                    "method": redc_method, "warm_up": WARM_UP,
                });
                if let Some(sq) = squaring(r) {
                    o["ifma_squaring"] = sq.into();
                    o["ifma_pipelined"] = pipelined(r).into();
                    o["ifma_xmm_chain"] = xmm_chain(r).into();
                }
                o["rounds"] = args.rounds.into();
                for (a, s) in anchors.iter().zip(&r.anchors) {
                    let Some((s, ratio)) = s else { continue };
                    let p = if a.role == "system" {
                        "openssl"
                    } else {
                        "newest_openssl"
                    };
                    o[format!("{p}_version")] = a.version.clone().into();
                    o[format!("{p}_ops_per_sec")] = round1(s.median).into();
                    o[format!("{p}_min_ops_per_sec")] = round1(s.min).into();
                    o[format!("{p}_max_ops_per_sec")] = round1(s.max).into();
                    o[format!("{p}_anchor_method")] = a.method.clone().into();
                    // The median of the per-round ratios, and their range.
                    let name = if a.role == "system" {
                        "ratio"
                    } else {
                        "newest_ratio"
                    };
                    o[name] = round3(ratio.median).into();
                    o[format!("{name}_min")] = round3(ratio.min).into();
                    o[format!("{name}_max")] = round3(ratio.max).into();
                }
                o
            })
            .collect();
        crate::outln(&serde_json::to_string_pretty(&json).expect("plain JSON"));
        for v in &verdicts {
            eprintln!("redc speed: {v}");
        }
        if let Some(w) = &spread_warning {
            eprintln!("redc speed: warning: {w}");
        }
        return 0;
    }
    let mut text = format!(
        "RSA PKCS#1 v1.5 SHA-256, {threads} thread{} (aggregate ops/s), median of ~50 ms batches over {}s per row in {} round{} after a warm-up of {WARM_UP}\nCPU: {cpu}; redc kernel: {kernel} (family {family}){}",
        if threads == 1 { "" } else { "s" },
        args.seconds,
        args.rounds,
        if args.rounds == 1 { "" } else { "s" },
        if disabled.is_empty() {
            String::new()
        } else {
            format!(
                "; REDC_CPU_DISABLE hides {} (a masked CPU is a proxy for an older one)",
                disabled.join(", ")
            )
        }
    );
    let choices: Vec<String> = rows
        .iter()
        .filter_map(|r| squaring(r).map(|sq| format!("{} bits: {sq}", r.bits)))
        .collect();
    if !choices.is_empty() {
        text += &format!(" (IFMA squaring: {})", choices.join(", "));
    }
    // The sizes of the rows that run the dual kernel and where `pred` holds.
    let sizes_where = |pred: &dyn Fn(&Row) -> bool| {
        rows.iter()
            .filter(|r| squaring(r).is_some() && pred(r))
            .map(|r| format!("{} bits", r.bits))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let piped = sizes_where(&pipelined);
    if !piped.is_empty() {
        text += &format!(" (quotient-pipelined: {piped})");
    }
    let xmm = sizes_where(&xmm_chain);
    if !xmm.is_empty() {
        text += &format!(" (quotient chain in xmm: {xmm})");
    }
    text += "\n";
    text += &format!(
        "{:>5} {:<op_width$}{:>12}{:>21}{:>11}",
        "bits", "op", "redc ops/s", "min..max", "us/op"
    );
    for a in &anchors {
        text += &format!(
            "{:>16}{:>21}{:>8}{:>14}",
            a.short(),
            "min..max",
            "ratio",
            "rounds"
        );
    }
    text += "\n";
    for r in &rows {
        text += &format!(
            "{:>5} {:<op_width$}{:>12.1}{:>21}{:>11.1}",
            r.bits,
            r.op,
            r.redc.median,
            format!("{:.1}..{:.1}", r.redc.min, r.redc.max),
            1e6 * threads as f64 / r.redc.median
        );
        for s in &r.anchors {
            match s {
                Some((s, ratio)) => {
                    text += &format!(
                        "{:>16.1}{:>21}{:>7.2}x{:>14}",
                        s.median,
                        format!("{:.1}..{:.1}", s.min, s.max),
                        ratio.median,
                        format!("{:.2}-{:.2}x", ratio.min, ratio.max)
                    )
                }
                None => text += &format!("{:>16}{:>21}{:>8}{:>14}", "-", "", "", ""),
            }
        }
        text += "\n";
    }
    text += &format!("redc: {redc_method}\n");
    for a in &anchors {
        text += &format!("{}: {} ({})\n", a.short(), a.method, a.path.display());
    }
    if !anchors.is_empty() {
        text += "ratio = redc ops/s / OpenSSL ops/s on the same key, same method and threads, per round (above 1: redc is faster): the median round, and the range over the rounds\n";
    }
    for v in &verdicts {
        text += &format!("{v}\n");
    }
    crate::out(&text);
    if let Some(w) = &spread_warning {
        eprintln!("redc speed: warning: {w}");
    }
    0
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// One progress line on stderr, rewritten in place on a terminal.
struct Progress {
    tty: bool,
}

impl Progress {
    fn new() -> Progress {
        Progress {
            tty: std::io::stderr().is_terminal(),
        }
    }

    fn say(&self, what: &str) {
        if self.tty {
            eprint!("\r\x1b[2Kredc speed: {what}...");
            let _ = std::io::stderr().flush();
        } else {
            eprintln!("redc speed: {what}...");
        }
    }

    fn done(&self) {
        if self.tty {
            eprint!("\r\x1b[2K");
        }
    }
}
