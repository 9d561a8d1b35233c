//! `redc sign --in FILE... --out-dir DIR`: many files, one key, every core.
//!
//! Each file is hashed, then all digests are signed at once through the
//! library's threaded batch path (eight-lane kernel where the CPU and the key
//! size allow it), and each signature is written to DIR/NAME.sig, NAME being
//! the input's file name. A file that cannot be read, or whose name another
//! input already took, fails alone with its own line on stderr; the others
//! are still signed, and the exit status is 2 if any failed. Signature files
//! are written through a temporary file and renamed, so none is partial.

use crate::io::{Secrecy, write_output};
use crate::rsa_args::SignArgs;
use crate::sign_common::{message_digest, sign_error};
use redc::hash::HashAlg;
use redc::keyfile::quote_untrusted;
use redc::rsa::{RsaPrivateKey, os_rng};
use std::collections::HashSet;
use std::path::Path;

/// What `sign` settled from the options and the key (an RSA-PSS key's
/// restrictions applied).
pub struct Plan<'a> {
    /// The loaded private key.
    pub key: &'a RsaPrivateKey,
    /// PSS (else PKCS#1 v1.5).
    pub pss: bool,
    /// The message hash.
    pub hash: HashAlg,
    /// PSS: the MGF1 hash.
    pub mgf1: HashAlg,
    /// PSS: the salt length (None: the hash length).
    pub salt_len: Option<usize>,
    /// Each file is the digest itself.
    pub prehashed: bool,
}

/// Sign every `--in` file into `dir`; the exit status (0, or 2 if any failed).
pub fn run(args: &SignArgs, plan: &Plan, dir: &str) -> Result<i32, String> {
    let (key, hash) = (plan.key, plan.hash);
    let dir_path = Path::new(dir);
    if !dir_path.is_dir() {
        std::fs::create_dir_all(dir_path)
            .map_err(|e| format!("--out-dir '{}': cannot create: {e}", quote_untrusted(dir)))?;
    }
    let mut failed = 0usize;
    let mut fail = |line: String| {
        eprintln!("redc sign: {line}");
        failed += 1;
    };
    let named = |path: &str, why: &str| format!("'{}': {why}", quote_untrusted(path));
    // (input path, output path, digest) of each input that could be read.
    let mut jobs: Vec<(&str, String, Vec<u8>)> = Vec::new();
    let mut taken = HashSet::new();
    for path in &args.input {
        if path == "-" {
            fail(named(path, "stdin cannot be signed with --out-dir (name a file)"));
            continue;
        }
        let Some(name) = Path::new(path).file_name() else {
            fail(named(path, "not a file name"));
            continue;
        };
        let out = dir_path.join(format!("{}.sig", name.to_string_lossy()));
        let out = out.to_string_lossy().into_owned();
        if !taken.insert(out.clone()) {
            fail(named(
                path,
                &format!("another input already writes '{}'", quote_untrusted(&out)),
            ));
            continue;
        }
        // The hash of the file, or with --prehashed the file itself, checked
        // against the hash's length: `sign`'s one-file rule.
        let digest = message_digest(hash, Some(path), plan.prehashed, None);
        match digest {
            Ok(d) => jobs.push((path, out, d)),
            // Reading errors name the file; a wrong length does not.
            Err(e) if e.contains(&quote_untrusted(path)) => fail(e),
            Err(e) => fail(named(path, &e)),
        }
    }
    let digests: Vec<&[u8]> = jobs.iter().map(|(_, _, d)| &d[..]).collect();
    let threads = args.threads.unwrap_or(0);
    let sigs = if !plan.pss {
        key.sign_pkcs1v15_batch_threads(hash, &digests, threads)
    } else if plan.mgf1 == hash {
        key.sign_pss_batch_threads(hash, &digests, plan.salt_len, threads)
    } else {
        // MGF1 over another hash: one at a time (no batch form).
        let mut rng = os_rng();
        digests
            .iter()
            .map(|d| key.sign_pss_mgf1(&mut rng, hash, plan.mgf1, d, plan.salt_len))
            .collect()
    };
    for ((path, out, _), sig) in jobs.iter().zip(sigs) {
        let written = sig
            .map_err(|e| sign_error(hash, e))
            .and_then(|s| write_output(out, &s, Secrecy::Public));
        if let Err(e) = written {
            fail(named(path, &e));
        }
    }
    if failed > 0 {
        let total = args.input.len();
        let signed = total - failed;
        let dir = quote_untrusted(dir);
        if signed == 0 {
            eprintln!("redc sign: {failed} of {total} files failed; none was signed in '{dir}'");
        } else {
            eprintln!("redc sign: {failed} of {total} files failed; {signed} signed in '{dir}'");
        }
        return Ok(2);
    }
    Ok(0)
}
