//! Bad input to every RSA command: one clear line on stderr, a non-zero
//! status, never a panic, never a partial output file.

mod common;
use common::{fresh, redc, s};

use std::path::Path;

/// Run, expect `status`, one stderr line containing `needle`, and no `out` file.
fn expect_error(args: &[&str], status: i32, needle: &str, out: Option<&Path>) {
    let o = redc(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(status), "{args:?}: {err}");
    // One line, or (issue 11) a parse error's line followed by clap's tip
    // and usage block.
    let parse_error = err.contains("For more information, try '--help'.");
    assert!(err.lines().count() == 1 || parse_error, "{args:?}: {err}");
    assert!(
        err.lines().next().unwrap_or("").contains(needle),
        "{args:?}: expected '{needle}' in the first line of: {err}"
    );
    assert!(!err.contains("panicked"));
    if let Some(out) = out {
        assert!(!out.exists(), "{args:?} left {out:?}");
    }
}

#[test]
fn every_command_rejects_bad_input_cleanly() {
    let d = fresh("errors", "bad-input");
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
        "outside the sizes genrsa makes (1024 to 16384 bits)",
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
        "invalid value 'md5'",
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

/// DER TLV with definite length (hand-built: the crafted keys do not go
/// through redc's encoder).
fn tlv(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    if body.len() < 0x80 {
        out.push(body.len() as u8);
    } else {
        let len: Vec<u8> = body
            .len()
            .to_be_bytes()
            .into_iter()
            .skip_while(|&b| b == 0)
            .collect();
        out.push(0x80 | len.len() as u8);
        out.extend(len);
    }
    out.extend_from_slice(body);
    out
}

/// PKCS#1 RSAPrivateKey DER of eight unsigned values.
fn pkcs1_der(v: &[num_bigint::BigUint]) -> Vec<u8> {
    let mut body = tlv(0x02, &[0]);
    for x in v {
        let mut b = x.to_bytes_be();
        if b[0] & 0x80 != 0 {
            b.insert(0, 0);
        }
        body.extend(tlv(0x02, &b));
    }
    tlv(0x30, &body)
}

/// PKCS#8 PrivateKeyInfo (rsaEncryption) around PKCS#1 DER.
fn pkcs8_der(pkcs1: &[u8]) -> Vec<u8> {
    let mut alg = tlv(0x06, &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01]);
    alg.extend([0x05, 0x00]);
    let mut body = tlv(0x02, &[0]);
    body.extend(tlv(0x30, &alg));
    body.extend(tlv(0x04, pkcs1));
    tlv(0x30, &body)
}

/// PEM with 64-column base64 (RFC 7468), written out here.
fn pem(label: &str, der: &[u8]) -> Vec<u8> {
    const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut text = String::new();
    for chunk in der.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let v = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                text.push(B64[(v >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                text.push('=');
            }
        }
    }
    let mut out = format!("-----BEGIN {label}-----\n");
    for line in text.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(line).unwrap());
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out.into_bytes()
}

/// Issue 14: a key with p = 1 and q = n (or p = n, q = 1) whose CRT values
/// fit used to panic in `sign` and `decrypt` (division by zero). Now: one
/// line naming the reason, status 2, no output file, in every key form.
#[test]
fn degenerate_prime_keys_are_refused_cleanly() {
    use num_bigint::{BigUint, RandBigInt};
    use rand::SeedableRng;
    let d = fresh("errors", "degenerate");
    let mut rng = rand::rngs::StdRng::seed_from_u64(14);
    let mut n = rng.gen_biguint(1024);
    n.set_bit(1023, true);
    n.set_bit(0, true);
    let (one, e, dd) = (
        BigUint::from(1u32),
        BigUint::from(65537u32),
        BigUint::from(12345u32),
    );
    let msg = d.join("m");
    std::fs::write(&msg, b"m").unwrap();
    let ct = d.join("c");
    std::fs::write(&ct, vec![1u8; 128]).unwrap();
    let out = d.join("out");
    let o = s(&out);
    let cases = [
        (
            "p1",
            vec![
                n.clone(),
                e.clone(),
                dd.clone(),
                one.clone(),
                n.clone(),
                one.clone(),
                dd.clone(),
                one.clone(),
            ],
            "invalid RSA key: p is 1",
        ),
        (
            "q1",
            vec![
                n.clone(),
                e.clone(),
                dd.clone(),
                n.clone(),
                one.clone(),
                dd.clone(),
                one.clone(),
                one.clone(),
            ],
            "invalid RSA key: q is 1",
        ),
    ];
    for (name, v, needle) in cases {
        let der1 = pkcs1_der(&v);
        let der8 = pkcs8_der(&der1);
        let forms = [
            ("pkcs1.der", der1.clone()),
            ("pkcs8.der", der8.clone()),
            ("pkcs1.pem", pem("RSA PRIVATE KEY", &der1)),
            ("pkcs8.pem", pem("PRIVATE KEY", &der8)),
        ];
        for (form, bytes) in forms {
            let key = d.join(format!("{name}.{form}"));
            std::fs::write(&key, bytes).unwrap();
            let k = s(&key);
            expect_error(
                &["sign", "--key", &k, "--in", &s(&msg), "-o", &o],
                2,
                needle,
                Some(&out),
            );
            expect_error(
                &["decrypt", "--key", &k, "--in", &s(&ct), "-o", &o],
                2,
                needle,
                Some(&out),
            );
        }
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// Issue 14, item 4: a file name with a newline or of 5,000 characters is
/// quoted escaped and shortened: still one line.
#[test]
fn untrusted_file_names_stay_on_one_line() {
    let d = fresh("errors", "names");
    let msg = d.join("m");
    std::fs::write(&msg, b"m").unwrap();
    let out = d.join("out");
    let nl = s(&d.join("no\nsuch\x1b[31mkey"));
    let long = format!("{}/{}", s(&d), "k".repeat(5000));
    for key in [nl.as_str(), long.as_str()] {
        let o = redc(&["sign", "--key", key, "--in", &s(&msg), "-o", &s(&out)]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "{err:?}");
        assert!(err.contains("cannot read '"), "{err}");
        assert!(!err.trim_end().chars().any(char::is_control), "{err:?}");
        assert!(err.len() < 200, "{} chars", err.len());
        assert!(!out.exists());
    }
    let o = redc(&["sign", "--key", &nl, "--in", &s(&msg), "-o", &s(&out)]);
    assert!(String::from_utf8_lossy(&o.stderr).contains(r"no\nsuch\u{1b}[31mkey"));
    let _ = std::fs::remove_dir_all(&d);
}
