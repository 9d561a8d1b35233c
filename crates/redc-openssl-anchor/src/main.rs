//! `redc-openssl-anchor`: the OpenSSL this binary is linked against, measured
//! in process the way `redc speed` measures redc, for `redc speed --compare`.
//!
//! Reads a private key (PKCS#8 or PKCS#1 DER) on stdin; signs and verifies
//! the shared 64-byte message with EVP one-shot calls (SHA-256, RSASSA-PKCS1-v1_5,
//! a fresh EVP_MD_CTX per operation, as an application calls OpenSSL); prints
//! one JSON object on stdout. Options: `--seconds S` (per op), `--threads N`;
//! `--version` prints only the JSON header (version, build).
//! Built against the system libcrypto by default, against the newest OpenSSL
//! (built from `openssl-src`, static) with `--features vendored`.
//! `unsafe` is denied here and allowed only in `ffi` (the libcrypto calls).

#![deny(unsafe_code)]

#[allow(unsafe_code)]
mod ffi;
#[path = "../../redc-cli/src/measure.rs"]
#[allow(dead_code)] // redc uses the rest
mod measure;

use std::io::Read;

fn main() {
    std::process::exit(run());
}

fn fail(msg: impl std::fmt::Display) -> i32 {
    eprintln!("redc-openssl-anchor: {msg}");
    2
}

fn run() -> i32 {
    let mut seconds = 1.0f64;
    let mut threads = 1usize;
    let mut args = std::env::args().skip(1);
    let header = serde_json::json!({
        "version": ffi::version(),
        "build": env!("REDC_ANCHOR_BUILD"),
        "method": format!("in process: EVP_DigestSign/EVP_DigestVerify one-shot, SHA-256, PKCS#1 v1.5, fresh EVP_MD_CTX per operation ({})", env!("REDC_ANCHOR_BUILD")),
    });
    while let Some(a) = args.next() {
        let value = |args: &mut dyn Iterator<Item = String>| args.next().unwrap_or_default();
        match a.as_str() {
            "--version" => {
                println!("{header}");
                return 0;
            }
            "--seconds" => match value(&mut args).parse::<f64>() {
                Ok(s) if s > 0.0 && s <= 3600.0 => seconds = s,
                _ => return fail("--seconds: a number above 0 and at most 3600"),
            },
            "--threads" => match value(&mut args).parse::<usize>() {
                Ok(n) if (1..=1024).contains(&n) => threads = n,
                _ => return fail("--threads: a whole number from 1 to 1024"),
            },
            other => {
                return fail(format!(
                    "unknown argument {other:?} (--seconds S, --threads N, --version)"
                ));
            }
        }
    }
    let mut der = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut der) {
        return fail(format!("stdin: {e}"));
    }
    let key = match ffi::PrivateKey::from_der(&der) {
        Ok(k) => k,
        Err(e) => return fail(e),
    };
    let msg = &measure::MESSAGE[..];
    let sig = match key.sign(msg) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    match key.verify(msg, &sig) {
        Ok(true) => {}
        Ok(false) => return fail("OpenSSL rejects its own signature"),
        Err(e) => return fail(e),
    }
    let sign = measure::measure(seconds, threads, || {
        || {
            std::hint::black_box(key.sign(msg).expect("OpenSSL sign"));
        }
    });
    let verify = measure::measure(seconds, threads, || {
        || assert!(key.verify(msg, &sig).expect("OpenSSL verify"))
    });
    let spread = |s: measure::Spread| serde_json::json!({"median": s.median, "min": s.min, "max": s.max, "batches": s.batches});
    let mut out = header;
    out["threads"] = threads.into();
    out["sign"] = spread(sign);
    out["verify"] = spread(verify);
    println!("{out}");
    0
}
