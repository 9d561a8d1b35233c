//! `redc speed`: RSA sign and verify throughput on in-memory keys, like
//! `openssl speed rsa`, optionally beside OpenSSL on the same keys in the
//! same run.
//!
//! sign = SHA-256 of a 64-byte message + RSASSA-PKCS1-v1_5 with blinding and
//! the fault check, as a user calls it; verify = the same hash + the public
//! operation with e = 65537 + the encoding check. Each row runs for
//! `--seconds`, in batches of about 50 ms; the figure is the median of the
//! batches' operations per second.
//!
//! `--compare` adds, on the same key: the system OpenSSL through the
//! `openssl` crate (EVP sign and verify, one-shot, SHA-256, PKCS#1 v1.5),
//! and, when Python's `cryptography` package can be imported, the OpenSSL
//! it bundles (OpenSSL 4.x), run as a subprocess with the same method.

use redc::hash::HashAlg;
use redc::keyfile::{Encoding, PrivateKeyFormat};
use redc::rsa::{RsaPrivateKey, keygen, os_rng};
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Arguments of `redc speed`.
#[derive(clap::Args, Debug)]
pub struct SpeedArgs {
    /// Key sizes in bits, comma separated.
    #[arg(long, value_delimiter = ',', default_value = "1024,2048,3072,4096")]
    bits: Vec<usize>,
    /// Seconds per row (sign and verify, each implementation).
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    /// Print a JSON array instead of the table.
    #[arg(long)]
    json: bool,
    /// Measure OpenSSL on the same keys in the same run, and print the ratios.
    #[arg(long)]
    compare: bool,
    /// Add "sign-batch" rows: signatures per second through the batch path
    /// (eight-lane IFMA kernel, four signatures per run), one thread.
    #[arg(long)]
    batch: bool,
}

/// Digests per batch call in the "sign-batch" rows.
const BATCH_LEN: usize = 32;

const MESSAGE: &[u8; 64] = b"redc speed: the message every implementation signs, 64 bytes....";

struct Row {
    bits: usize,
    op: &'static str,
    redc: f64,
    system: Option<f64>,
    newest: Option<f64>,
}

/// Run `redc speed`; returns the exit status.
pub fn run(args: SpeedArgs) -> i32 {
    if let Some(&bad) = args.bits.iter().find(|&&b| !(1024..=16384).contains(&b)) {
        return crate::fail("speed", format!("--bits {bad}: sizes from 1024 to 16384 bits"));
    }
    if !(args.seconds > 0.0 && args.seconds <= 3600.0) {
        return crate::fail("speed", "--seconds must be above 0 and at most 3600");
    }
    if let Some(msg) = redc::arch::select::kernel_request_error() {
        return crate::fail("speed", msg);
    }
    let progress = Progress::new();
    let newest = if args.compare { newest_openssl() } else { None };
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
        progress.say(&format!("{bits} bits: redc sign"));
        let sign = measure(args.seconds, || {
            let digest = HashAlg::Sha256.digest(MESSAGE);
            let sig = key
                .sign_pkcs1v15(&mut os_rng(), HashAlg::Sha256, &digest)
                .expect("sign");
            std::hint::black_box(sig);
        });
        let sig = key
            .sign_pkcs1v15(&mut os_rng(), HashAlg::Sha256, &HashAlg::Sha256.digest(MESSAGE))
            .expect("sign");
        progress.say(&format!("{bits} bits: redc verify"));
        let public = key.to_public_key();
        let verify = measure(args.seconds, || {
            let digest = HashAlg::Sha256.digest(MESSAGE);
            public
                .verify_pkcs1v15(HashAlg::Sha256, &digest, &sig)
                .expect("verify");
        });
        let batch = if args.batch {
            progress.say(&format!("{bits} bits: redc sign-batch"));
            Some(
                measure(args.seconds, || {
                    let digests: Vec<Vec<u8>> = (0..BATCH_LEN)
                        .map(|i| HashAlg::Sha256.digest(&[&MESSAGE[..], &[i as u8]].concat()))
                        .collect();
                    let refs: Vec<&[u8]> = digests.iter().map(|d| &d[..]).collect();
                    for sig in key.sign_pkcs1v15_batch(&mut os_rng(), HashAlg::Sha256, &refs) {
                        std::hint::black_box(sig.expect("sign"));
                    }
                }) * BATCH_LEN as f64,
            )
        } else {
            None
        };
        let (mut sys_sign, mut sys_verify, mut new_sign, mut new_verify) = (None, None, None, None);
        if args.compare {
            progress.say(&format!("{bits} bits: system OpenSSL"));
            match system_openssl(&pkcs8, args.seconds) {
                Ok((s, v)) => (sys_sign, sys_verify) = (Some(s), Some(v)),
                Err(e) => return crate::fail("speed", format!("system OpenSSL: {e}")),
            }
            if let Some(newest) = &newest {
                progress.say(&format!("{bits} bits: {}", newest.version));
                match newest.measure(&key, args.seconds) {
                    Ok((s, v)) => (new_sign, new_verify) = (Some(s), Some(v)),
                    Err(e) => eprintln!("redc speed: {}: {e} (skipped)", newest.version),
                }
            }
        }
        rows.push(Row {
            bits,
            op: "sign",
            redc: sign,
            system: sys_sign,
            newest: new_sign,
        });
        rows.push(Row {
            bits,
            op: "verify",
            redc: verify,
            system: sys_verify,
            newest: new_verify,
        });
        if let Some(rate) = batch {
            // Compared with the anchors' one-at-a-time signing.
            rows.push(Row {
                bits,
                op: "sign-batch",
                redc: rate,
                system: sys_sign,
                newest: new_sign,
            });
        }
    }
    progress.done();
    let system_version = openssl::version::version().to_string();
    let kernel = redc::exp::kernel_name();
    let cpu = redc::arch::select::cpu_model();
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
    let op_width = if args.batch { 11 } else { 7 };
    if args.json {
        let json: Vec<_> = rows
            .iter()
            .map(|r| {
                let mut o = serde_json::json!({
                    "bits": r.bits, "op": r.op, "ops_per_sec": round1(r.redc),
                    "us_per_op": round1(1e6 / r.redc), "kernel": kernel, "cpu": cpu, "threads": 1,
                });
                if let Some(sq) = squaring(r) {
                    o["ifma_squaring"] = sq.into();
                }
                if let Some(s) = r.system {
                    o["openssl_version"] = system_version.clone().into();
                    o["openssl_ops_per_sec"] = round1(s).into();
                    o["ratio"] = round3(r.redc / s).into();
                }
                if let (Some(n), Some(newest)) = (r.newest, &newest) {
                    o["newest_openssl_version"] = newest.version.clone().into();
                    o["newest_openssl_ops_per_sec"] = round1(n).into();
                    o["newest_ratio"] = round3(r.redc / n).into();
                }
                o
            })
            .collect();
        crate::outln(&serde_json::to_string_pretty(&json).expect("plain JSON"));
        return 0;
    }
    let mut text = format!(
        "RSA PKCS#1 v1.5 SHA-256, one thread, median of ~50 ms batches over {}s per row\nCPU: {cpu}; redc kernel: {kernel}",
        args.seconds
    );
    let choices: Vec<String> = rows
        .iter()
        .filter_map(|r| squaring(r).map(|sq| format!("{} bits: {sq}", r.bits)))
        .collect();
    if !choices.is_empty() {
        text += &format!(" (IFMA squaring: {})", choices.join(", "));
    }
    text += "\n";
    text += &format!(
        "{:>5} {:<op_width$}{:>12}{:>11}",
        "bits", "op", "redc ops/s", "us/op"
    );
    if args.compare {
        text += &format!(
            "{:>24}{:>8}",
            system_version
                .split_whitespace()
                .take(2)
                .collect::<Vec<_>>()
                .join(" "),
            "ratio"
        );
        if let Some(n) = &newest {
            text += &format!(
                "{:>24}{:>8}",
                n.version.split_whitespace().take(2).collect::<Vec<_>>().join(" "),
                "ratio"
            );
        }
    }
    text += "\n";
    for r in &rows {
        text += &format!(
            "{:>5} {:<op_width$}{:>12.1}{:>11.1}",
            r.bits,
            r.op,
            r.redc,
            1e6 / r.redc
        );
        if let Some(s) = r.system {
            text += &format!("{:>24.1}{:>7.2}x", s, r.redc / s);
        }
        if let Some(n) = r.newest {
            text += &format!("{:>24.1}{:>7.2}x", n, r.redc / n);
        }
        text += "\n";
    }
    if args.compare {
        text += "ratio = redc ops/s / OpenSSL ops/s on the same key (above 1: redc is faster)\n";
    }
    crate::out(&text);
    0
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Median operations per second of `op` over `seconds`, in ~50 ms batches.
fn measure(seconds: f64, mut op: impl FnMut()) -> f64 {
    // Warm up and size the batch.
    let start = Instant::now();
    let mut warm = 0u64;
    while start.elapsed() < Duration::from_millis(20) || warm < 2 {
        op();
        warm += 1;
    }
    let per_op = start.elapsed().as_secs_f64() / warm as f64;
    let batch = ((0.05 / per_op) as u64).max(1);
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let mut rates = Vec::new();
    while Instant::now() < deadline || rates.len() < 3 {
        let t = Instant::now();
        for _ in 0..batch {
            op();
        }
        rates.push(batch as f64 / t.elapsed().as_secs_f64());
    }
    rates.sort_by(f64::total_cmp);
    rates[rates.len() / 2]
}

/// The system OpenSSL on the same key: (sign, verify) ops per second.
fn system_openssl(pkcs8_der: &[u8], seconds: f64) -> Result<(f64, f64), String> {
    use openssl::hash::MessageDigest;
    use openssl::pkey::PKey;
    use openssl::sign::{Signer, Verifier};
    let pkey = PKey::private_key_from_der(pkcs8_der).map_err(|e| e.to_string())?;
    let sign_once = || -> Vec<u8> {
        let mut signer = Signer::new(MessageDigest::sha256(), &pkey).expect("EVP signer");
        signer.sign_oneshot_to_vec(MESSAGE).expect("OpenSSL sign")
    };
    let sig = sign_once();
    let sign = measure(seconds, || {
        std::hint::black_box(sign_once());
    });
    let verify = measure(seconds, || {
        let mut verifier = Verifier::new(MessageDigest::sha256(), &pkey).expect("EVP verifier");
        assert!(verifier.verify_oneshot(&sig, MESSAGE).expect("OpenSSL verify"));
    });
    Ok((sign, verify))
}

/// OpenSSL as bundled by Python's `cryptography` (OpenSSL 4.x today).
struct NewestOpenssl {
    python: String,
    version: String,
}

/// The measuring script: reads a PKCS#8 PEM key on stdin, prints JSON.
const PY_SPEED: &str = r#"
import json, sys, time
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding
seconds = float(sys.argv[1])
msg = sys.argv[2].encode()
key = serialization.load_pem_private_key(sys.stdin.buffer.read(), password=None)
pub = key.public_key()
def measure(op):
    start, warm = time.perf_counter(), 0
    while time.perf_counter() - start < 0.02 or warm < 2:
        op(); warm += 1
    per = (time.perf_counter() - start) / warm
    batch = max(1, int(0.05 / per))
    deadline, rates = time.perf_counter() + seconds, []
    while time.perf_counter() < deadline or len(rates) < 3:
        t = time.perf_counter()
        for _ in range(batch):
            op()
        rates.append(batch / (time.perf_counter() - t))
    rates.sort()
    return rates[len(rates) // 2]
sig = key.sign(msg, padding.PKCS1v15(), hashes.SHA256())
s = measure(lambda: key.sign(msg, padding.PKCS1v15(), hashes.SHA256()))
v = measure(lambda: pub.verify(sig, msg, padding.PKCS1v15(), hashes.SHA256()))
print(json.dumps({"sign": s, "verify": v}))
"#;

fn newest_openssl() -> Option<NewestOpenssl> {
    let python = std::env::var("REDC_PYTHON").unwrap_or_else(|_| "python3".into());
    let out = std::process::Command::new(&python)
        .args([
            "-c",
            "from cryptography.hazmat.backends.openssl import backend; print(backend.openssl_version_text())",
        ])
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!(
            "redc speed: Python's cryptography package not found: comparing with the system OpenSSL only"
        );
        return None;
    }
    let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
    Some(NewestOpenssl {
        python,
        version: format!("{version} (python cryptography)"),
    })
}

impl NewestOpenssl {
    fn measure(&self, key: &RsaPrivateKey, seconds: f64) -> Result<(f64, f64), String> {
        use std::process::{Command, Stdio};
        let pem = key
            .to_key_file(PrivateKeyFormat::Pkcs8, Encoding::Pem)
            .map_err(|e| e.to_string())?;
        let mut child = Command::new(&self.python)
            .args([
                "-c",
                PY_SPEED,
                &seconds.to_string(),
                std::str::from_utf8(MESSAGE).expect("ascii"),
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| e.to_string())?;
        child
            .stdin
            .take()
            .expect("piped")
            .write_all(&pem)
            .map_err(|e| e.to_string())?;
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("failed")
                .to_string());
        }
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
        match (v["sign"].as_f64(), v["verify"].as_f64()) {
            (Some(s), Some(v)) => Ok((s, v)),
            _ => Err("unexpected output".into()),
        }
    }
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
