//! Bad input to every RSA command: one clear line on stderr, a non-zero
//! status, never a panic, never a partial output file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn redc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_redc"))
        .args(args)
        .output()
        .expect("run redc")
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("redc-errors-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// Run, expect `status`, one stderr line containing `needle`, and no `out` file.
fn expect_error(args: &[&str], status: i32, needle: &str, out: Option<&Path>) {
    let o = redc(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(status), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: expected '{needle}' in: {err}");
    assert!(!err.contains("panicked"));
    if let Some(out) = out {
        assert!(!out.exists(), "{args:?} left {out:?}");
    }
}

#[test]
fn every_command_rejects_bad_input_cleanly() {
    let d = dir();
    let key = d.join("k.pem");
    let pubkey = d.join("pub.pem");
    let msg = d.join("m");
    let out = d.join("out");
    std::fs::write(&msg, b"m").unwrap();
    assert!(
        redc(&["genrsa", "--bits", "1024", "-o", &s(&key)])
            .status
            .success()
    );
    assert!(
        redc(&["pubout", "--key", &s(&key), "-o", &s(&pubkey)])
            .status
            .success()
    );
    let garbage = d.join("garbage");
    std::fs::write(
        &garbage,
        b"-----BEGIN PRIVATE KEY-----\nnot base64!\n-----END PRIVATE KEY-----\n",
    )
    .unwrap();
    let truncated = d.join("trunc");
    let full = std::fs::read(&key).unwrap();
    std::fs::write(&truncated, &full[..full.len() / 2]).unwrap();
    let missing = d.join("does-not-exist");
    let (k, pk, m, o) = (s(&key), s(&pubkey), s(&msg), s(&out));

    // genrsa
    expect_error(
        &["genrsa", "--bits", "512", "-o", &o],
        2,
        "unsupported RSA key size 512",
        Some(&out),
    );
    expect_error(
        &["genrsa", "--bits", "lots", "-o", &o],
        2,
        "invalid value",
        Some(&out),
    );
    expect_error(
        &["genrsa", "--bits", "2048", "--e", "4", "-o", &o],
        2,
        "odd",
        Some(&out),
    );
    expect_error(
        &["genrsa", "--bits", "2048", "--e", "x", "-o", &o],
        2,
        "not a number",
        Some(&out),
    );
    expect_error(
        &["genrsa", "--bits", "2048", "--format", "pem", "-o", &o],
        2,
        "invalid value",
        Some(&out),
    );
    expect_error(
        &["genrsa", "--bits", "1024", "-o", &s(&d.join("no/such/dir/k"))],
        2,
        "cannot write",
        None,
    );
    // pubout
    expect_error(
        &["pubout", "--key", &s(&missing), "-o", &o],
        2,
        "cannot read",
        Some(&out),
    );
    expect_error(
        &["pubout", "--key", &s(&garbage), "-o", &o],
        2,
        "garbage",
        Some(&out),
    );
    expect_error(
        &["pubout", "--key", &m, "-o", &o],
        2,
        "not a PEM or DER key",
        Some(&out),
    );
    // sign
    expect_error(&["sign", "--key", &pk, "--in", &m, "-o", &o], 2, "", Some(&out));
    expect_error(
        &["sign", "--key", &s(&truncated), "--in", &m, "-o", &o],
        2,
        "trunc",
        Some(&out),
    );
    expect_error(
        &["sign", "--key", &k, "--hash", "md5", "--in", &m, "-o", &o],
        2,
        "unknown hash 'md5'",
        Some(&out),
    );
    expect_error(
        &["sign", "--key", &k, "--hash", "sha1", "--in", &m, "-o", &o],
        2,
        "verification only",
        Some(&out),
    );
    expect_error(
        &["sign", "--key", &k, "--in", &s(&missing), "-o", &o],
        2,
        "cannot read",
        Some(&out),
    );
    expect_error(
        &[
            "sign",
            "--key",
            &k,
            "--scheme",
            "pss",
            "--salt-len",
            "500",
            "--in",
            &m,
            "-o",
            &o,
        ],
        2,
        "too small",
        Some(&out),
    );
    expect_error(
        &["sign", "--key", &k, "--salt-len", "5", "--in", &m, "-o", &o],
        2,
        "pss only",
        Some(&out),
    );
    expect_error(
        &["sign", "--key", &k, "--scheme", "raw", "--in", &m, "-o", &o],
        2,
        "invalid value",
        Some(&out),
    );
    expect_error(
        &["sign", "--key", &k, "--in", &m, "-o", &o, "--frobnicate"],
        2,
        "unexpected argument",
        Some(&out),
    );
    // verify: malformed signatures are failures (status 1) with a reason.
    let short_sig = d.join("short");
    std::fs::write(&short_sig, [1u8; 100]).unwrap();
    let big_sig = d.join("big");
    std::fs::write(&big_sig, [0xffu8; 128]).unwrap();
    for sig in [&short_sig, &big_sig] {
        let r = redc(&["verify", "--key", &pk, "--in", &m, "--sig", &s(sig)]);
        assert_eq!(r.status.code(), Some(1));
        assert_eq!(r.stdout, b"Verification failure\n");
        assert_eq!(String::from_utf8_lossy(&r.stderr).lines().count(), 1);
    }
    expect_error(
        &["verify", "--key", &pk, "--in", &m, "--sig", &s(&missing)],
        2,
        "cannot read",
        None,
    );
    expect_error(
        &[
            "verify",
            "--key",
            &pk,
            "--scheme",
            "pss",
            "--salt-len",
            "x",
            "--in",
            &m,
            "--sig",
            &s(&big_sig),
        ],
        2,
        "salt-len",
        None,
    );
    // encrypt
    let long = d.join("long");
    std::fs::write(&long, vec![7u8; 100]).unwrap();
    expect_error(
        &["encrypt", "--key", &pk, "--in", &s(&long), "-o", &o],
        2,
        "too long",
        Some(&out),
    );
    expect_error(
        &["encrypt", "--key", &pk, "--label", "abc", "--in", &m, "-o", &o],
        2,
        "--label",
        Some(&out),
    );
    expect_error(
        &[
            "encrypt", "--key", &pk, "--scheme", "pkcs1", "--label", "ab", "--in", &m, "-o", &o,
        ],
        2,
        "oaep only",
        Some(&out),
    );
    expect_error(
        &["encrypt", "--key", &s(&garbage), "--in", &m, "-o", &o],
        2,
        "garbage",
        Some(&out),
    );
    // decrypt
    expect_error(
        &["decrypt", "--key", &pk, "--in", &s(&big_sig), "-o", &o],
        2,
        "",
        Some(&out),
    );
    expect_error(
        &["decrypt", "--key", &k, "--in", &s(&short_sig), "-o", &o],
        2,
        "exactly 128",
        Some(&out),
    );
    expect_error(
        &["decrypt", "--key", &k, "--in", &s(&big_sig), "-o", &o],
        2,
        "not below the modulus",
        Some(&out),
    );
    // A random 128-byte ciphertext does not OAEP-decrypt: status 1, no output.
    let junk = d.join("junk");
    let mut bytes = [0x5au8; 128];
    bytes[0] = 0;
    std::fs::write(&junk, bytes).unwrap();
    expect_error(
        &["decrypt", "--key", &k, "--in", &s(&junk), "-o", &o],
        1,
        "decryption failed",
        Some(&out),
    );
    // PKCS#1 v1.5 implicit rejection: a synthetic message, status 0, deterministic.
    let a = redc(&[
        "decrypt",
        "--key",
        &k,
        "--scheme",
        "pkcs1",
        "--in",
        &s(&junk),
        "-o",
        "-",
    ]);
    let b = redc(&[
        "decrypt",
        "--key",
        &k,
        "--scheme",
        "pkcs1",
        "--in",
        &s(&junk),
        "-o",
        "-",
    ]);
    assert!(a.status.success() && a.stdout == b.stdout && a.stdout.len() <= 117);
    let _ = std::fs::remove_dir_all(&d);
}
