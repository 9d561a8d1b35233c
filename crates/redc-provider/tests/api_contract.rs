//! The provider through libcrypto's EVP API, where the `openssl` tools do
//! not reach: tests/probe/probe.c (compiled here with `cc -lcrypto`) runs
//! each call once on OpenSSL's default provider (the oracle) and once on
//! redc, and the outcomes must agree.

mod common;
use common::*;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// The compiled probe, or `None` (SKIPPED) without a C compiler or the
/// OpenSSL 3 headers (scripts/test.sh installs gcc and libssl-dev).
fn probe() -> Option<&'static PathBuf> {
    static EXE: OnceLock<Option<PathBuf>> = OnceLock::new();
    EXE.get_or_init(|| {
        let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/probe/probe.c");
        let exe = work_dir().join("probe");
        let built = Command::new("cc")
            .arg("-pthread")
            .arg("-o")
            .arg(&exe)
            .arg(&src)
            .arg("-lcrypto")
            .output();
        match built {
            Ok(o) if o.status.success() => Some(exe),
            Ok(o) => {
                eprintln!(
                    "SKIPPED: cc could not build the probe: {}",
                    String::from_utf8_lossy(&o.stderr)
                );
                None
            }
            Err(e) => {
                eprintln!("SKIPPED: no C compiler (cc): {e}");
                None
            }
        }
    })
    .as_ref()
}

/// The probe's "name=value" lines for `key` on the default provider and on redc.
fn run_both(key: &str) -> Outcomes {
    let dir = provider_dir().expect("checked by the caller");
    let exe = probe().expect("checked by the caller");
    let run = |extra: &[&str]| {
        let o = Command::new(exe)
            .arg(work_dir().join(key))
            .args(extra)
            .current_dir(work_dir())
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(
            o.status.success(),
            "probe {extra:?} failed:\n{out}\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        out.lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<BTreeMap<_, _>>()
    };
    let theirs = run(&["default"]);
    let ours = run(&["redc", &dir.display().to_string()]);
    assert_eq!(theirs["key-provider"], "default");
    assert_eq!(ours["key-provider"], "redc", "the probe's key is not redc's");
    (theirs, ours)
}

type Outcomes = (BTreeMap<String, String>, BTreeMap<String, String>);

/// The probe's outcomes (default, redc), run once for all the tests.
fn probed() -> Option<Outcomes> {
    static RUN: OnceLock<Option<Outcomes>> = OnceLock::new();
    RUN.get_or_init(|| {
        common::provider_dir()?;
        probe()?;
        let (key, _, _) = key(2048);
        Some(run_both(&key))
    })
    .clone()
}

macro_rules! need_probe {
    () => {
        match probed() {
            Some(r) => r,
            None => {
                eprintln!("SKIPPED: OpenSSL 3 `openssl` binary or the C probe not available");
                return;
            }
        }
    };
}

/// Decryption into a buffer smaller than the modulus fails before any
/// private operation, as OpenSSL's does: otherwise success or failure
/// would tell whether the plaintext (or PKCS#1 v1.5's implicit-rejection
/// substitute) fits, a length oracle on the padding check.
#[test]
fn decrypt_refuses_an_output_buffer_below_the_modulus_size() {
    let (theirs, ours) = need_probe!();
    for pad in ["pkcs1", "oaep"] {
        let full = format!("decrypt-{pad}-full-buffer");
        let exact = format!("decrypt-{pad}-exact-buffer");
        assert_eq!(theirs[&full], "1", "{theirs:?}");
        assert_eq!(ours[&full], "1", "{ours:?}");
        assert_eq!(ours[&exact], theirs[&exact], "{pad}: {ours:?} vs {theirs:?}");
        assert_eq!(ours[&exact], "0");
    }
}

/// `EVP_PKEY_CTX_get0_rsa_oaep_label` asks for an OCTET_PTR parameter.
#[test]
fn oaep_label_can_be_read_back() {
    let (theirs, ours) = need_probe!();
    assert_eq!(theirs["oaep-label-len"], "10", "{theirs:?}");
    assert_eq!(ours["oaep-label-len"], "10", "{ours:?}");
    assert_eq!(ours["oaep-label"], "same");
}

/// `EVP_PKEY_copy_parameters` duplicates the key object with a
/// parameters-only selection: the copy must not hold the key, least of
/// all its private half.
#[test]
fn key_dup_honours_the_selection() {
    let (theirs, ours) = need_probe!();
    for k in ["copy-parameters-has-n", "copy-parameters-has-d"] {
        assert_eq!(theirs[k], "0", "{theirs:?}");
        assert_eq!(ours[k], "0", "{k}: {ours:?}");
    }
}

/// Every spelling of a digest name OpenSSL accepts (names, aliases, the
/// OID) selects the same digest: PKCS#1 v1.5 signatures are deterministic,
/// so redc's must equal the default provider's byte for byte.
#[test]
fn digest_names_and_oids_sign_like_the_default_provider() {
    let (theirs, ours) = need_probe!();
    let names: Vec<&String> = theirs.keys().filter(|k| k.starts_with("digest-sign-")).collect();
    assert!(names.len() >= 8, "{theirs:?}");
    for k in names {
        assert_ne!(theirs[k], "fail", "{k}");
        assert_eq!(ours[k], theirs[k], "{k}");
    }
}

/// What applications read back from a context or a key: the PSS settings
/// as libssl sets them (integers), bits, size, security bits, the default
/// digest, EVP_PKEY_eq on itself.
#[test]
fn context_and_key_parameters_read_back_like_the_default_providers() {
    let (theirs, ours) = need_probe!();
    let keys: Vec<&String> = theirs
        .keys()
        .filter(|k| k.starts_with("pss-") || (k.starts_with("key-") && *k != "key-provider"))
        .collect();
    assert!(keys.len() >= 9, "{theirs:?}");
    for k in keys {
        assert_eq!(ours.get(k), Some(&theirs[k]), "{k}");
    }
}

/// One key object used by several threads at once, each with its own
/// contexts (as a TLS server does): every signature verifies under the
/// default provider.
#[test]
fn one_key_signs_from_many_threads() {
    let (theirs, ours) = need_probe!();
    assert_eq!(theirs["threads-started"], "4", "{theirs:?}");
    assert_eq!(ours["threads-started"], "4", "{ours:?}");
    assert_eq!(theirs["threads-bad-signatures"], "0", "{theirs:?}");
    assert_eq!(ours["threads-bad-signatures"], "0", "{ours:?}");
}
