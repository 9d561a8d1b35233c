//! Interop with the `openssl` binary, both directions, for every scheme,
//! hash and key form: keys made by `openssl genrsa` / `genpkey` and by
//! `redc genrsa`, at 2048, 3072, 4096 and an odd size (3001 bits).

mod common;
use common::{fresh, ok, openssl, openssl_genpkey, p, redc};

use std::path::Path;
use std::sync::OnceLock;

/// OpenSSL-made keys shared by the tests: (bits, PKCS#8 PEM path).
fn openssl_keys() -> &'static Vec<(usize, String)> {
    static KEYS: OnceLock<Vec<(usize, String)>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let dir = fresh("interop", "keys");
        let mut keys = Vec::new();
        for bits in [2048usize, 3001, 3072, 4096] {
            let path = p(&dir, &format!("k{bits}.pem"));
            if bits == 3072 {
                openssl_genpkey(&path, "RSA", bits, &[]);
            } else {
                ok(openssl(&["genrsa", "-out", &path, &bits.to_string()]), "genrsa");
            }
            keys.push((bits, path));
        }
        keys
    })
}

#[test]
fn signatures_both_directions() {
    for (bits, key) in openssl_keys() {
        let dir = fresh("interop", &format!("sig{bits}"));
        let msg = p(&dir, "m.bin");
        std::fs::write(&msg, b"interop message \x00\x01\xff").unwrap();
        let pubkey = p(&dir, "pub.pem");
        ok(
            openssl(&["pkey", "-in", key, "-pubout", "-out", &pubkey]),
            "pubout",
        );
        for hash in ["sha256", "sha384", "sha512"] {
            // PKCS#1 v1.5: byte-identical to openssl dgst, and each verifies the other's.
            let (ours, theirs) = (p(&dir, "s.redc"), p(&dir, "s.ossl"));
            ok(
                redc(&["sign", "--key", key, "--hash", hash, "--in", &msg, "-o", &ours]),
                "redc sign",
            );
            ok(
                openssl(&["dgst", &format!("-{hash}"), "-sign", key, "-out", &theirs, &msg]),
                "openssl sign",
            );
            assert_eq!(
                std::fs::read(&ours).unwrap(),
                std::fs::read(&theirs).unwrap(),
                "{bits} {hash}"
            );
            let v = ok(
                redc(&[
                    "verify", "--key", &pubkey, "--hash", hash, "--in", &msg, "--sig", &theirs,
                ]),
                "verify",
            );
            assert_eq!(v.stdout, b"Verified OK\n");
            // PSS, salt = hash length: openssl verifies ours; we verify theirs (exact and auto).
            let (ours, theirs) = (p(&dir, "pss.redc"), p(&dir, "pss.ossl"));
            ok(
                redc(&[
                    "sign", "--key", key, "--hash", hash, "--scheme", "pss", "--in", &msg, "-o", &ours,
                ]),
                "pss sign",
            );
            ok(
                openssl(&[
                    "dgst",
                    &format!("-{hash}"),
                    "-sigopt",
                    "rsa_padding_mode:pss",
                    "-sigopt",
                    "rsa_pss_saltlen:digest",
                    "-verify",
                    &pubkey,
                    "-signature",
                    &ours,
                    &msg,
                ]),
                "openssl verifies redc pss",
            );
            ok(
                openssl(&[
                    "dgst",
                    &format!("-{hash}"),
                    "-sigopt",
                    "rsa_padding_mode:pss",
                    "-sigopt",
                    "rsa_pss_saltlen:max",
                    "-sign",
                    key,
                    "-out",
                    &theirs,
                    &msg,
                ]),
                "openssl pss sign",
            );
            let v = ok(
                redc(&[
                    "verify", "--key", key, "--hash", hash, "--scheme", "pss", "--in", &msg, "--sig", &theirs,
                ]),
                "auto",
            );
            assert_eq!(v.stdout, b"Verified OK\n");
            // An exact salt length that is wrong must fail with status 1.
            let v = redc(&[
                "verify",
                "--key",
                &pubkey,
                "--hash",
                hash,
                "--scheme",
                "pss",
                "--salt-len",
                "20",
                "--in",
                &msg,
                "--sig",
                &theirs,
            ]);
            assert_eq!(v.status.code(), Some(1));
            assert_eq!(v.stdout, b"Verification failure\n");
        }
        // SHA-1 verification of an OpenSSL signature.
        let theirs = p(&dir, "sha1.ossl");
        ok(
            openssl(&["dgst", "-sha1", "-sign", key, "-out", &theirs, &msg]),
            "sha1 sign",
        );
        ok(
            redc(&[
                "verify", "--key", &pubkey, "--hash", "sha1", "--in", &msg, "--sig", &theirs,
            ]),
            "sha1 verify",
        );
        // A tampered message fails.
        std::fs::write(&msg, b"tampered").unwrap();
        let v = redc(&[
            "verify",
            "--key",
            &pubkey,
            "--in",
            &msg,
            "--sig",
            &p(&dir, "s.ossl"),
        ]);
        assert_eq!(v.status.code(), Some(1));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn encryption_both_directions() {
    for (bits, key) in openssl_keys() {
        let dir = fresh("interop", &format!("enc{bits}"));
        let msg = p(&dir, "m.bin");
        std::fs::write(&msg, b"a secret \x00 with a zero byte").unwrap();
        let pubkey = p(&dir, "pub.der");
        ok(
            openssl(&["pkey", "-in", key, "-pubout", "-outform", "DER", "-out", &pubkey]),
            "pubout der",
        );
        let (ct, back) = (p(&dir, "ct"), p(&dir, "back"));
        for hash in ["sha1", "sha256", "sha384", "sha512"] {
            for label in ["", "0102abcd"] {
                let mut ossl_opts = vec![
                    "-pkeyopt".to_string(),
                    "rsa_padding_mode:oaep".into(),
                    "-pkeyopt".into(),
                    format!("rsa_oaep_md:{hash}"),
                    "-pkeyopt".into(),
                    format!("rsa_mgf1_md:{hash}"),
                ];
                if !label.is_empty() {
                    ossl_opts.extend(["-pkeyopt".into(), format!("rsa_oaep_label:{label}")]);
                }
                let opts: Vec<&str> = ossl_opts.iter().map(String::as_str).collect();
                // redc encrypts, openssl decrypts.
                ok(
                    redc(&[
                        "encrypt", "--key", &pubkey, "--hash", hash, "--label", label, "--in", &msg, "-o",
                        &ct,
                    ]),
                    "encrypt",
                );
                let mut args = vec!["pkeyutl", "-decrypt", "-inkey", key, "-in", &ct, "-out", &back];
                args.extend(&opts);
                ok(openssl(&args), "openssl decrypt");
                assert_eq!(
                    std::fs::read(&back).unwrap(),
                    std::fs::read(&msg).unwrap(),
                    "{bits} {hash}"
                );
                // openssl encrypts, redc decrypts.
                let mut args = vec![
                    "pkeyutl", "-encrypt", "-pubin", "-keyform", "DER", "-inkey", &pubkey, "-in", &msg,
                    "-out", &ct,
                ];
                args.extend(&opts);
                ok(openssl(&args), "openssl encrypt");
                let out = ok(
                    redc(&[
                        "decrypt", "--key", key, "--hash", hash, "--label", label, "--in", &ct, "-o", "-",
                    ]),
                    "decrypt",
                );
                assert_eq!(out.stdout, std::fs::read(&msg).unwrap());
                // The wrong label does not decrypt: status 1, no output file.
                let wrong = p(&dir, "wrong");
                let o = redc(&[
                    "decrypt", "--key", key, "--hash", hash, "--label", "ff", "--in", &ct, "-o", &wrong,
                ]);
                assert_eq!(o.status.code(), Some(1));
                assert!(!Path::new(&wrong).exists());
            }
        }
        // PKCS#1 v1.5 both ways.
        ok(
            redc(&[
                "encrypt", "--key", &pubkey, "--scheme", "pkcs1", "--in", &msg, "-o", &ct,
            ]),
            "pkcs1 encrypt",
        );
        ok(
            openssl(&["pkeyutl", "-decrypt", "-inkey", key, "-in", &ct, "-out", &back]),
            "openssl pkcs1 decrypt",
        );
        assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&msg).unwrap());
        ok(
            openssl(&[
                "pkeyutl", "-encrypt", "-pubin", "-keyform", "DER", "-inkey", &pubkey, "-in", &msg, "-out",
                &ct,
            ]),
            "openssl pkcs1 encrypt",
        );
        let out = ok(
            redc(&[
                "decrypt", "--key", key, "--scheme", "pkcs1", "--in", &ct, "-o", "-",
            ]),
            "pkcs1 decrypt",
        );
        assert_eq!(out.stdout, std::fs::read(&msg).unwrap());
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn every_key_form_openssl_writes_is_read() {
    let (bits, key) = &openssl_keys()[0];
    let dir = fresh("interop", "forms");
    let msg = p(&dir, "m");
    std::fs::write(&msg, b"forms").unwrap();
    let sig = p(&dir, "sig");
    ok(
        openssl(&["dgst", "-sha256", "-sign", key, "-out", &sig, &msg]),
        "sign",
    );
    let forms: Vec<(&str, Vec<&str>)> = vec![
        ("pkcs8.pem", vec!["pkey", "-in", key]),
        ("pkcs8.der", vec!["pkey", "-in", key, "-outform", "DER"]),
        ("pkcs1.pem", vec!["rsa", "-in", key, "-traditional"]),
        (
            "pkcs1.der",
            vec!["rsa", "-in", key, "-traditional", "-outform", "DER"],
        ),
    ];
    for (name, args) in &forms {
        let path = p(&dir, name);
        let mut args = args.clone();
        args.extend(["-out", &path]);
        ok(openssl(&args), name);
        // Signing with every private form gives OpenSSL's signature.
        let ours = p(&dir, "ours");
        ok(redc(&["sign", "--key", &path, "--in", &msg, "-o", &ours]), name);
        assert_eq!(
            std::fs::read(&ours).unwrap(),
            std::fs::read(&sig).unwrap(),
            "{name}"
        );
    }
    let pub_forms: Vec<(&str, Vec<&str>)> = vec![
        ("spki.pem", vec!["pkey", "-in", key, "-pubout"]),
        ("spki.der", vec!["pkey", "-in", key, "-pubout", "-outform", "DER"]),
        ("rsapub.pem", vec!["rsa", "-in", key, "-RSAPublicKey_out"]),
        (
            "rsapub.der",
            vec!["rsa", "-in", key, "-RSAPublicKey_out", "-outform", "DER"],
        ),
    ];
    for (name, args) in &pub_forms {
        let path = p(&dir, name);
        let mut args = args.clone();
        args.extend(["-out", &path]);
        ok(openssl(&args), name);
        let v = ok(
            redc(&["verify", "--key", &path, "--in", &msg, "--sig", &sig]),
            name,
        );
        assert_eq!(v.stdout, b"Verified OK\n", "{bits} {name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn redc_keys_pass_openssl_check_in_every_form() {
    let dir = fresh("interop", "genrsa");
    for bits in ["1024", "2048", "3001", "4096", "8192"] {
        let key = p(&dir, &format!("k{bits}.pem"));
        ok(redc(&["genrsa", "--bits", bits, "-o", &key]), "genrsa");
        let check = ok(openssl(&["rsa", "-check", "-noout", "-in", &key]), "rsa -check");
        assert!(
            String::from_utf8_lossy(&check.stdout).contains("RSA key ok"),
            "{bits}"
        );
        let text =
            String::from_utf8_lossy(&ok(openssl(&["rsa", "-in", &key, "-noout", "-text"]), "text").stdout)
                .into_owned();
        assert!(
            text.contains(&format!("Private-Key: ({bits} bit, 2 primes)")),
            "{text}"
        );
        assert!(text.contains("publicExponent: 65537"));
    }
    // PKCS#1, DER, another exponent; public forms read by openssl.
    let key = p(&dir, "k1.der");
    ok(
        redc(&[
            "genrsa", "--bits", "2048", "--format", "pkcs1", "--der", "--e", "3", "-o", &key,
        ]),
        "genrsa pkcs1 der",
    );
    ok(
        openssl(&["rsa", "-check", "-noout", "-inform", "DER", "-in", &key]),
        "check der",
    );
    let text = String::from_utf8_lossy(
        &ok(
            openssl(&["rsa", "-inform", "DER", "-in", &key, "-noout", "-text"]),
            "t",
        )
        .stdout,
    )
    .into_owned();
    assert!(text.contains("publicExponent: 3"));
    let pkcs1_pem = p(&dir, "k1.pem");
    ok(
        redc(&["genrsa", "--bits", "2048", "--format", "pkcs1", "-o", &pkcs1_pem]),
        "genrsa pkcs1",
    );
    assert!(
        std::fs::read_to_string(&pkcs1_pem)
            .unwrap()
            .starts_with("-----BEGIN RSA PRIVATE KEY-----\n")
    );
    for (format, der, reader) in [
        ("spki", false, vec!["pkey", "-pubin", "-noout", "-in"]),
        (
            "spki",
            true,
            vec!["pkey", "-pubin", "-inform", "DER", "-noout", "-in"],
        ),
        ("pkcs1", false, vec!["rsa", "-RSAPublicKey_in", "-noout", "-in"]),
        (
            "pkcs1",
            true,
            vec!["rsa", "-RSAPublicKey_in", "-inform", "DER", "-noout", "-in"],
        ),
    ] {
        let out = p(&dir, &format!("pub-{format}-{der}"));
        let mut args = vec!["pubout", "--key", &key, "--format", format, "-o", &out];
        if der {
            args.push("--der");
        }
        ok(redc(&args), "pubout");
        let mut reader = reader.clone();
        reader.push(&out);
        ok(openssl(&reader), "openssl reads redc public key");
    }
    // redc's re-encoding of an OpenSSL key is byte-identical to OpenSSL's own.
    let (bits, ossl) = &openssl_keys()[0];
    let ours = p(&dir, "pub-ours.pem");
    let theirs = p(&dir, "pub-theirs.pem");
    ok(redc(&["pubout", "--key", ossl, "-o", &ours]), "pubout");
    ok(
        openssl(&["pkey", "-in", ossl, "-pubout", "-out", &theirs]),
        "pkey",
    );
    assert_eq!(
        std::fs::read(&ours).unwrap(),
        std::fs::read(&theirs).unwrap(),
        "{bits}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
