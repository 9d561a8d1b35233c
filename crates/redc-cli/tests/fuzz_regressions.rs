//! Replays the fuzz targets' inputs through the same entry points as
//! cargo-fuzz (`fuzz/src/lib.rs`, included here by path), in a plain
//! `cargo test` on stable:
//! - every file of `fuzz/regressions/<target>/` (inputs that once crashed a
//!   target, kept by `scripts/fuzz.sh`) must run without a panic, except
//!   those listed in `fuzz/regressions/PENDING` (a fix owned by another
//!   item), which are reported as PENDING while they still panic;
//! - every seed of `fuzz/seeds/<target>/` runs too, and the seeds that
//!   OpenSSL made as valid signatures and ciphertexts must verify and
//!   decrypt (OpenSSL is the oracle: `openssl dgst -sign`, `pkeyutl`).

mod common;
#[allow(dead_code)]
#[path = "../../../fuzz/src/lib.rs"]
mod targets;

use redc::hash::HashAlg;
use redc::padding::SaltLen;
use redc::rsa::os_rng;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use targets::TARGETS;

fn fuzz_dir() -> PathBuf {
    common::repo_root().join("fuzz")
}

/// The files of a directory, sorted; none if it does not exist.
fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = rd.map(|e| e.unwrap().path()).filter(|p| p.is_file()).collect();
    v.sort();
    v
}

/// `<target>/<file>` entries of fuzz/regressions/PENDING.
fn pending() -> Vec<String> {
    let text = std::fs::read_to_string(fuzz_dir().join("regressions/PENDING")).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect()
}

fn panics(f: fn(&[u8]), data: &[u8]) -> Option<String> {
    catch_unwind(AssertUnwindSafe(|| f(data))).err().map(|e| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a panic".into())
    })
}

#[test]
fn regressions_replay_without_panic() {
    let pending = pending();
    let mut failures = Vec::new();
    let mut replayed = 0;
    for (name, entry) in TARGETS {
        for path in files(&fuzz_dir().join("regressions").join(name)) {
            let data = std::fs::read(&path).unwrap();
            let id = format!("{name}/{}", path.file_name().unwrap().to_string_lossy());
            replayed += 1;
            let f = entry;
            if pending.contains(&id) {
                match panics(f, &data) {
                    Some(msg) => eprintln!(
                        "PENDING: fuzz/regressions/{id} still panics ({msg}); see fuzz/regressions/PENDING"
                    ),
                    None => eprintln!(
                        "PENDING entry fixed: fuzz/regressions/{id} no longer panics: remove it from fuzz/regressions/PENDING"
                    ),
                }
                continue;
            }
            if let Some(msg) = panics(f, &data) {
                failures.push(format!("fuzz/regressions/{id}: {msg}"));
            }
        }
    }
    assert!(
        replayed > 0,
        "no regression file found under {}",
        fuzz_dir().display()
    );
    assert!(failures.is_empty(), "regressions panic:\n{}", failures.join("\n"));
}

#[test]
fn seeds_replay_without_panic() {
    let mut failures = Vec::new();
    for (name, entry) in TARGETS {
        let seeds = files(&fuzz_dir().join("seeds").join(name));
        assert!(!seeds.is_empty(), "no seeds for {name}");
        for path in seeds {
            let data = std::fs::read(&path).unwrap();
            if let Some(msg) = panics(entry, &data) {
                failures.push(format!("{}: {msg}", path.display()));
            }
        }
    }
    assert!(failures.is_empty(), "seeds panic:\n{}", failures.join("\n"));
}

fn hash_named(name: &str) -> HashAlg {
    match name {
        "sha1" => HashAlg::Sha1,
        "sha256" => HashAlg::Sha256,
        "sha384" => HashAlg::Sha384,
        "sha512" => HashAlg::Sha512,
        _ => panic!("unknown hash {name}"),
    }
}

/// The seeds OpenSSL signed and encrypted with the fixed key are valid, so
/// the fuzz targets start from inputs that reach the end of each check.
#[test]
fn openssl_seeds_verify_and_decrypt() {
    let key = targets::fixed_key();
    let digest_of = |h: HashAlg| h.digest(b"redc fuzz");
    let mut checked = 0;
    for path in files(&fuzz_dir().join("seeds/verify")) {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        if stem.ends_with("_em") {
            continue;
        }
        let sig = &std::fs::read(&path).unwrap()[1..];
        let h = hash_named(stem.rsplit('_').next().unwrap());
        let r = if stem.starts_with("pkcs1_") {
            key.public_key().verify_pkcs1v15(h, &digest_of(h), sig)
        } else {
            key.public_key().verify_pss(h, &digest_of(h), sig, SaltLen::Auto)
        };
        assert_eq!(r, Ok(()), "{stem}");
        checked += 1;
    }
    for path in files(&fuzz_dir().join("seeds/decrypt")) {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        if !stem.starts_with("oaep_") || stem.ends_with("_em") {
            continue;
        }
        let c = &std::fs::read(&path).unwrap()[1..];
        let (h, label): (_, &[u8]) = match stem.strip_suffix("_label") {
            Some(s) => (hash_named(s.rsplit('_').next().unwrap()), b"fuzz"),
            None => (hash_named(stem.rsplit('_').next().unwrap()), b""),
        };
        let m = key.decrypt_oaep_with_rng(&mut os_rng(), h, label, c).unwrap();
        assert_eq!(&m[..], b"secret", "{stem}");
        checked += 1;
    }
    assert_eq!(checked, 15, "11 signatures and 4 OAEP ciphertexts");
}
