//! Behaviours OpenSSL's own RSA test data (`evppkey_rsa*.txt`) checks, each
//! against the default provider through the `openssl` binary: the default
//! provider alone is the oracle; redc (first, `?provider=redc`) must do the
//! work (its trace says so) and give the same outcome.

mod common;

use common::{key, openssl, openssl_ok, read, redc_did, with_redc, write};
use std::process::Command;

/// Stderr of a run, as text.
fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// PSS with no digest set signs and verifies with SHA-1 (RFC 8017's
/// default RSASSA-PSS-params; OpenSSL's `RSA_DEFAULT_DIGEST_NAME`), with
/// MGF1 over SHA-1 as well.
#[test]
fn pss_without_a_digest_uses_sha1() {
    let dir = need_openssl!();
    let redc = with_redc(dir);
    let (k, p, _) = key(2048);
    write("pss-msg", b"a message signed with PSS and no digest named");
    let (out, _) = openssl_ok(&["dgst", "-sha1", "-binary", "-out", "pss-d20", "pss-msg"], &[]);
    assert!(out.is_empty());
    assert_eq!(read("pss-d20").len(), 20);
    // The default provider signs without a digest; redc verifies.
    openssl_ok(
        &[
            "pkeyutl",
            "-sign",
            "-inkey",
            &k,
            "-in",
            "pss-d20",
            "-out",
            "pss-def.sig",
            "-pkeyopt",
            "rsa_padding_mode:pss",
        ],
        &[],
    );
    let (out, err) = openssl_ok(
        &[
            "pkeyutl",
            "-verify",
            "-pubin",
            "-inkey",
            &p,
            "-in",
            "pss-d20",
            "-sigfile",
            "pss-def.sig",
            "-pkeyopt",
            "rsa_padding_mode:pss",
            "-pkeyopt",
            "rsa_mgf1_md:sha1",
        ],
        &redc,
    );
    assert!(out.contains("Signature Verified Successfully"), "{out}");
    assert!(redc_did(&err, "verify Pss Some(Hash(Sha1))"), "{err}");
    // redc signs without a digest; the default provider verifies with SHA-1
    // named explicitly, and refuses it with SHA-256.
    let (_, err) = openssl_ok(
        &[
            "pkeyutl",
            "-sign",
            "-inkey",
            &k,
            "-in",
            "pss-d20",
            "-out",
            "pss-redc.sig",
            "-pkeyopt",
            "rsa_padding_mode:pss",
        ],
        &redc,
    );
    assert!(redc_did(&err, "sign Pss Some(Hash(Sha1))"), "{err}");
    let verify_with = |md: &str| {
        let md = format!("digest:{md}");
        let o = openssl(
            &[
                "pkeyutl",
                "-verify",
                "-pubin",
                "-inkey",
                &p,
                "-in",
                "pss-d20",
                "-sigfile",
                "pss-redc.sig",
                "-pkeyopt",
                "rsa_padding_mode:pss",
                "-pkeyopt",
                &md,
                "-pkeyopt",
                "rsa_mgf1_md:sha1",
            ],
            &[],
        );
        String::from_utf8_lossy(&o.stdout).contains("Signature Verified Successfully")
    };
    assert!(verify_with("sha1"));
    assert!(!verify_with("sha256"));
}

/// MD5-SHA1 (TLS 1.0 and 1.1): PKCS#1 v1.5 over the 36 bytes, no
/// DigestInfo; the same signature as the default provider's, and inputs of
/// another length refused.
#[test]
fn md5_sha1_signatures_match_the_default_provider() {
    let dir = need_openssl!();
    let redc = with_redc(dir);
    let (k, p, _) = key(2048);
    write("in36", b"0123456789ABCDEF0123456789ABCDEF0123");
    write("in35", b"0123456789ABCDEF0123456789ABCDEF012");
    let sign = |out: &str, extra: &[String]| {
        openssl_ok(
            &[
                "pkeyutl",
                "-sign",
                "-inkey",
                &k,
                "-in",
                "in36",
                "-out",
                out,
                "-pkeyopt",
                "digest:MD5-SHA1",
            ],
            extra,
        )
    };
    sign("md5sha1-def.sig", &[]);
    let (_, err) = sign("md5sha1-redc.sig", &redc);
    assert!(redc_did(&err, "sign Pkcs1 Some(Md5Sha1)"), "{err}");
    assert_eq!(read("md5sha1-def.sig"), read("md5sha1-redc.sig"));
    let verify = |input: &str| {
        let o = openssl(
            &[
                "pkeyutl",
                "-verify",
                "-pubin",
                "-inkey",
                &p,
                "-in",
                input,
                "-sigfile",
                "md5sha1-def.sig",
                "-pkeyopt",
                "digest:MD5-SHA1",
            ],
            &redc,
        );
        assert!(
            redc_did(&stderr(&o), "verify Pkcs1 Some(Md5Sha1)"),
            "{}",
            stderr(&o)
        );
        String::from_utf8_lossy(&o.stdout).contains("Signature Verified Successfully")
    };
    assert!(verify("in36"));
    assert!(!verify("in35"));
    openssl_ok(
        &[
            "pkeyutl",
            "-verifyrecover",
            "-pubin",
            "-inkey",
            &p,
            "-in",
            "md5sha1-def.sig",
            "-out",
            "md5sha1.rec",
            "-pkeyopt",
            "digest:MD5-SHA1",
        ],
        &redc,
    );
    assert_eq!(read("md5sha1.rec"), b"0123456789ABCDEF0123456789ABCDEF0123");
}

/// A ciphertext shorter than the modulus is the number with its leading
/// zero bytes left out: both providers decrypt it as the k-byte one.
#[test]
fn short_ciphertexts_decrypt_as_if_left_padded() {
    let dir = need_openssl!();
    let redc = with_redc(dir);
    let (k, _, _) = key(2048);
    // c = 00 01 02 ... (below n, whose top byte is nonzero), written
    // without its leading zero: 255 bytes for a 256-byte modulus.
    let c: Vec<u8> = (1..=255u8).collect();
    write("short.ct", &c);
    let mut full = vec![0u8];
    full.extend_from_slice(&c);
    write("full.ct", &full);
    let decrypt = |input: &str, out: &str, extra: &[String]| {
        openssl_ok(
            &[
                "pkeyutl",
                "-decrypt",
                "-inkey",
                &k,
                "-in",
                input,
                "-out",
                out,
                "-pkeyopt",
                "rsa_padding_mode:none",
            ],
            extra,
        )
    };
    decrypt("short.ct", "short-def.pt", &[]);
    let (_, err) = decrypt("short.ct", "short-redc.pt", &redc);
    assert!(redc_did(&err, "decrypt None"), "{err}");
    decrypt("full.ct", "full-redc.pt", &redc);
    assert_eq!(read("short-def.pt"), read("short-redc.pt"));
    assert_eq!(read("full-redc.pt"), read("short-redc.pt"));
    assert_eq!(read("short-redc.pt").len(), 256);
    // Longer than the modulus: refused by both.
    let mut long = vec![0u8; 1];
    long.extend_from_slice(&full);
    write("long.ct", &long);
    for extra in [&[][..], &redc[..]] {
        let o = openssl(
            &[
                "pkeyutl",
                "-decrypt",
                "-inkey",
                &k,
                "-in",
                "long.ct",
                "-pkeyopt",
                "rsa_padding_mode:none",
            ],
            extra,
        );
        assert!(!o.status.success());
    }
}

/// "implicit-rejection" is among the cipher's settable parameters, so that
/// `-pkeyopt implicit-rejection:0` reaches it: bad padding then fails
/// instead of giving the synthetic message.
#[test]
fn implicit_rejection_is_settable() {
    let dir = need_openssl!();
    let redc = with_redc(dir);
    let (k, _, _) = key(2048);
    // 01 01 ... 01 (below n): its decryption is not PKCS#1 v1.5 type 2
    // padding but with negligible probability.
    write("ir.ct", &[1u8; 256]);
    let run = |flag: &str| {
        let opt = format!("implicit-rejection:{flag}");
        openssl(
            &[
                "pkeyutl", "-decrypt", "-inkey", &k, "-in", "ir.ct", "-pkeyopt", &opt,
            ],
            &redc,
        )
    };
    let on = run("1");
    assert!(on.status.success(), "{}", stderr(&on));
    assert!(on.stdout.len() < 256 - 10);
    assert!(redc_did(&stderr(&on), "decrypt Pkcs1"), "{}", stderr(&on));
    let off = run("0");
    assert!(!off.status.success());
    assert!(!stderr(&off).contains("Can't set parameter"), "{}", stderr(&off));
    assert!(redc_did(&stderr(&off), "decrypt Pkcs1"), "{}", stderr(&off));
}

/// Combinations the default provider refuses when they are set are refused
/// by redc at the same step ("Can't set parameter"), not at the operation.
#[test]
fn bad_combinations_are_refused_when_set() {
    let dir = need_openssl!();
    let redc = with_redc(dir);
    let (k, _, _) = key(2048);
    write("combo-d32", &[7u8; 32]);
    for opts in [
        &["rsa_padding_mode:none", "digest:sha256"][..],
        &["digest:sha256", "rsa_padding_mode:none"],
        &["rsa_mgf1_md:sha256"],
        &["rsa_pss_saltlen:20"],
    ] {
        let mut args = vec![
            "pkeyutl",
            "-sign",
            "-inkey",
            &k,
            "-in",
            "combo-d32",
            "-out",
            "combo.sig",
        ];
        for o in opts {
            args.extend(["-pkeyopt", o]);
        }
        for extra in [&[][..], &redc[..]] {
            let o = openssl(&args, extra);
            let err = stderr(&o);
            assert!(!o.status.success(), "{opts:?} {extra:?}");
            let last = opts[opts.len() - 1];
            assert!(
                err.contains(&format!("Can't set parameter \"{last}\"")),
                "{opts:?} {extra:?}: {err}"
            );
            assert!(!redc_did(&err, "sign"), "{err}");
        }
    }
    // Key generation below 512 bits: refused when the size is set.
    for extra in [&[][..], &redc[..]] {
        let o = openssl(
            &["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:128"],
            extra,
        );
        let err = stderr(&o);
        assert!(!o.status.success());
        assert!(err.contains("rsa_keygen_bits:128"), "{err}");
        assert!(!redc_did(&err, "generate"), "{err}");
    }
}

/// A `REDC_*` setting with a fixed set of values refuses the provider when
/// it holds another, with the reason in OpenSSL's error queue.
#[test]
fn unknown_settings_refuse_to_load() {
    let dir = need_openssl!();
    for (var, value) in [("REDC_KERNEL", "bogus"), ("REDC_PROVIDER_TRACE", "yes")] {
        let o = Command::new("openssl")
            .args(["list", "-providers", "-provider-path"])
            .arg(dir)
            .args(["-provider", "redc"])
            .env_remove("REDC_PROVIDER_TRACE")
            .env(var, value)
            .output()
            .unwrap();
        let err = stderr(&o);
        assert!(!o.status.success(), "{var}={value}");
        assert!(err.contains("unable to load provider redc"), "{err}");
        let line = err
            .lines()
            .find(|l| l.contains(&format!("unknown {var} '{value}'")))
            .unwrap_or_else(|| panic!("no reason for {var}={value} in:\n{err}"));
        assert!(line.contains("invalid config data"), "{line}");
    }
    // Known values load.
    for (var, value) in [("REDC_KERNEL", "portable"), ("REDC_PROVIDER_TRACE", "0")] {
        let o = Command::new("openssl")
            .args(["list", "-providers", "-provider-path"])
            .arg(dir)
            .args(["-provider", "redc"])
            .env(var, value)
            .output()
            .unwrap();
        assert!(o.status.success(), "{var}={value}: {}", stderr(&o));
        assert!(String::from_utf8_lossy(&o.stdout).contains("redc"));
    }
}

/// With `?provider=redc` (redc preferred), a key redc refuses (here d = 0,
/// which OpenSSL's decoder accepts and its CRT signing never reads) makes
/// OpenSSL fall back to its default provider, which signs with it; with
/// `provider=redc` on the operation (the key still decoded by the default
/// provider) the refusal is final. tests/probe/fallback.c runs both.
#[test]
fn refused_keys_fall_back_unless_the_operation_requires_redc() {
    let dir = need_openssl!();
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/probe/fallback.c");
    let exe = common::work_dir().join("fallback");
    match Command::new("cc")
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .arg("-lcrypto")
        .output()
    {
        Ok(o) if o.status.success() => {}
        Ok(o) => {
            eprintln!("SKIPPED: cc could not build {}: {}", src.display(), stderr(&o));
            return;
        }
        Err(e) => {
            eprintln!("SKIPPED: no C compiler (cc): {e}");
            return;
        }
    }
    let (k, _, _) = key(2048);
    // The same key with d = 0: its traditional encoding's integers, d
    // replaced, re-encoded by `openssl asn1parse -genconf`.
    openssl_ok(&["rsa", "-in", &k, "-traditional", "-out", "trad.pem"], &[]);
    let (listing, _) = openssl_ok(&["asn1parse", "-in", "trad.pem"], &[]);
    let ints: Vec<&str> = listing
        .lines()
        .filter(|l| l.contains("INTEGER"))
        .map(|l| l.rsplit(':').next().unwrap().trim())
        .collect();
    assert_eq!(ints.len(), 9, "{listing}");
    let names = ["version", "n", "e", "d", "p", "q", "dp", "dq", "qinv"];
    let mut conf = String::from("asn1=SEQUENCE:rsa\n[rsa]\n");
    for (name, value) in names.iter().zip(&ints) {
        let value = if *name == "d" { "00" } else { value };
        conf.push_str(&format!("{name}=INTEGER:0x{value}\n"));
    }
    write("d0.cnf", conf.as_bytes());
    openssl_ok(
        &["asn1parse", "-genconf", "d0.cnf", "-noout", "-out", "d0.der"],
        &[],
    );
    openssl_ok(
        &["pkey", "-inform", "DER", "-in", "d0.der", "-out", "d0.pem"],
        &[],
    );
    let run = |key: &str, propq: &str| {
        let o = Command::new(&exe)
            .arg(common::work_dir().join(key))
            .arg(dir)
            .arg(propq)
            .env("REDC_PROVIDER_TRACE", "1")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        let out = String::from_utf8_lossy(&o.stdout).trim().to_string();
        (out, redc_did(&stderr(&o), "sign"))
    };
    // The good key: redc signs under either query.
    assert_eq!(run(&k, "?provider=redc"), ("sign=ok".to_string(), true));
    assert_eq!(run(&k, "provider=redc"), ("sign=ok".to_string(), true));
    // d = 0: signed anyway, by the default provider, when redc is only
    // preferred; refused when the operation requires redc.
    assert_eq!(run("d0.pem", "?provider=redc"), ("sign=ok".to_string(), false));
    assert_eq!(
        run("d0.pem", "provider=redc"),
        ("sign=refused".to_string(), false)
    );
}
