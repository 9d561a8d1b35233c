//! Issue 10 against the `openssl` binary, both directions: encrypted keys
//! (PBES2 PBKDF2/scrypt, PBE-SHA1-3DES, legacy PEM) with every --passin
//! form, keys redc encrypts read by OpenSSL, refusals (wrong or missing
//! passphrase, truncated keys), every new hash and a separate MGF1 hash
//! for PSS and OAEP, prehashed signing, mismatched PEM labels. OpenSSL is
//! the oracle: public keys are compared with what `openssl pkey -pubout`
//! prints for the plain key, signatures byte for byte where deterministic.

mod common;
use common::{fresh, ok, openssl, openssl_genpkey, p, redc, redc_command, redc_stdin, refused};

use std::path::Path;
use std::sync::OnceLock;

/// One OpenSSL-made RSA-2048 key: (PKCS#8 PEM path, its SPKI PEM per OpenSSL).
fn key() -> &'static (String, Vec<u8>) {
    static KEY: OnceLock<(String, Vec<u8>)> = OnceLock::new();
    KEY.get_or_init(|| {
        let dir = fresh("keys", "key");
        let path = p(&dir, "k.pem");
        openssl_genpkey(&path, "RSA", 2048, &[]);
        let spki = ok(openssl(&["pkey", "-in", &path, "-pubout"]), "pubout").stdout;
        (path, spki)
    })
}

const PASS: &str = "pass:correct horse";

#[test]
fn encrypted_keys_openssl_writes_redc_reads() {
    let (plain, spki) = key();
    let dir = fresh("keys", "enc-read");
    let pw = "pass:correct horse";
    std::fs::write(p(&dir, "pub.pem"), spki).unwrap();
    let forms: &[(&str, Vec<&str>)] = &[
        ("aes256.pem", vec!["pkey", "-aes256"]),
        ("aes128.pem", vec!["pkcs8", "-topk8", "-v2", "aes128"]),
        ("aes192.pem", vec!["pkcs8", "-topk8", "-v2", "aes192"]),
        ("scrypt.pem", vec!["pkcs8", "-topk8", "-v2", "aes256", "-scrypt"]),
        ("des3.pem", vec!["pkcs8", "-topk8", "-v2", "des3"]),
        (
            "prf-sha1.pem",
            vec!["pkcs8", "-topk8", "-v2", "aes256", "-v2prf", "hmacWithSHA1"],
        ),
        ("v1.pem", vec!["pkcs8", "-topk8", "-v1", "PBE-SHA1-3DES"]),
        (
            "v1.der",
            vec!["pkcs8", "-topk8", "-v1", "PBE-SHA1-3DES", "-outform", "DER"],
        ),
        (
            "aes256.der",
            vec!["pkcs8", "-topk8", "-v2", "aes256", "-outform", "DER"],
        ),
        ("trad-aes128.pem", vec!["rsa", "-traditional", "-aes128"]),
        ("trad-aes256.pem", vec!["rsa", "-traditional", "-aes256"]),
        ("trad-des3.pem", vec!["rsa", "-traditional", "-des3"]),
    ];
    for (name, args) in forms {
        let out = p(&dir, name);
        let mut a = args.clone();
        a.extend(["-in", plain, "-passout", pw, "-out", &out]);
        ok(openssl(&a), name);
        let text = std::fs::read(&out).unwrap();
        if name.starts_with("trad") {
            assert!(text.windows(22).any(|w| w == b"Proc-Type: 4,ENCRYPTED"), "{name}");
        }
        let got = ok(redc(&["pubout", "--key", &out, "--passin", PASS]), name);
        assert_eq!(&got.stdout, spki, "{name}");
        // And the private half works: a signature OpenSSL verifies.
        let msg = p(&dir, "m");
        std::fs::write(&msg, name.as_bytes()).unwrap();
        let sig = p(&dir, "sig");
        ok(
            redc(&["sign", "--key", &out, "--passin", PASS, "--in", &msg, "-o", &sig]),
            name,
        );
        let v = ok(
            openssl(&[
                "dgst",
                "-sha256",
                "-verify",
                &p(&dir, "pub.pem"),
                "-signature",
                &sig,
                &msg,
            ]),
            name,
        );
        assert_eq!(v.stdout, b"Verified OK\n", "{name}");
    }
}

#[test]
fn passin_forms() {
    let (plain, spki) = key();
    let dir = fresh("keys", "passin");
    let enc = p(&dir, "enc.pem");
    ok(
        openssl(&[
            "pkey",
            "-in",
            plain,
            "-aes256",
            "-passout",
            "pass:s3cret",
            "-out",
            &enc,
        ]),
        "encrypt",
    );
    let file = p(&dir, "pw.txt");
    std::fs::write(&file, "s3cret\nignored second line\n").unwrap();
    let by_pass = ok(
        redc(&["pubout", "--key", &enc, "--passin", "pass:s3cret"]),
        "pass:",
    );
    assert_eq!(&by_pass.stdout, spki);
    let by_file = ok(
        redc(&["pubout", "--key", &enc, "--passin", &format!("file:{file}")]),
        "file:",
    );
    assert_eq!(&by_file.stdout, spki);
    let by_env = redc_command()
        .args(["pubout", "--key", &enc, "--passin", "env:REDC_TEST_PW"])
        .env("REDC_TEST_PW", "s3cret")
        .output()
        .unwrap();
    assert_eq!(&ok(by_env, "env:").stdout, spki);
    let by_stdin = redc_stdin(&["pubout", "--key", &enc, "--passin", "stdin"], b"s3cret\n");
    assert_eq!(&ok(by_stdin, "stdin").stdout, spki);
    let fd_file = std::fs::File::open(&file).unwrap();
    let by_fd = redc_command()
        .args(["pubout", "--key", &enc, "--passin", "fd:0"])
        .stdin(fd_file)
        .output()
        .unwrap();
    assert_eq!(&ok(by_fd, "fd:").stdout, spki);
    // Unset variable, missing file, unknown form: one line, status 2.
    refused(
        redc(&["pubout", "--key", &enc, "--passin", "env:REDC_NO_SUCH_VAR_X"]),
        "env",
    );
    refused(
        redc(&["pubout", "--key", &enc, "--passin", "file:/nonexistent/pw"]),
        "file",
    );
    // A passphrase typed without `pass:` is not echoed back.
    let e = refused(redc(&["pubout", "--key", &enc, "--passin", "s3cret"]), "bare");
    assert!(!e.contains("s3cret"), "{e}");
}

#[test]
fn encrypted_keys_redc_writes_openssl_reads() {
    let dir = fresh("keys", "enc-write");
    for (cipher, format, ossl_name) in [
        ("aes-128-cbc", "pkcs8", "AES-128-CBC"),
        ("aes-192-cbc", "pkcs8", "AES-192-CBC"),
        ("aes-256-cbc", "pkcs8", "AES-256-CBC"),
        ("aes-128-cbc", "pkcs1", "AES-128-CBC"),
        ("aes-256-cbc", "pkcs1", "AES-256-CBC"),
    ] {
        let out = p(&dir, &format!("{cipher}-{format}.pem"));
        ok(
            redc(&[
                "genrsa",
                "--bits",
                "1024",
                "--format",
                format,
                "--passout",
                PASS,
                "--cipher",
                cipher,
                "-o",
                &out,
            ]),
            cipher,
        );
        let text = String::from_utf8(std::fs::read(&out).unwrap()).unwrap();
        if format == "pkcs1" {
            assert!(text.starts_with("-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n"));
            assert!(text.contains(&format!("DEK-Info: {ossl_name},")), "{text}");
        } else {
            assert!(text.starts_with("-----BEGIN ENCRYPTED PRIVATE KEY-----\n"));
            // OpenSSL names the PBES2 cipher it finds.
            let asn1 = ok(openssl(&["asn1parse", "-in", &out]), "asn1parse");
            let asn1 = String::from_utf8_lossy(&asn1.stdout).to_lowercase();
            assert!(asn1.contains(cipher), "{cipher}: {asn1}");
            assert!(
                asn1.contains("pbkdf2") && asn1.contains("hmacwithsha256"),
                "{asn1}"
            );
        }
        // OpenSSL decrypts it, finds a consistent key, and agrees on its public half.
        let check = ok(
            openssl(&["rsa", "-in", &out, "-passin", PASS, "-check", "-noout"]),
            "openssl rsa -check",
        );
        assert_eq!(check.stdout, b"RSA key ok\n");
        let theirs = ok(
            openssl(&["pkey", "-in", &out, "-passin", PASS, "-pubout"]),
            "pkey",
        );
        let ours = ok(redc(&["pubout", "--key", &out, "--passin", PASS]), "pubout");
        assert_eq!(ours.stdout, theirs.stdout, "{cipher} {format}");
        // The wrong passphrase fails in OpenSSL too.
        assert!(
            !openssl(&["pkey", "-in", &out, "-passin", "pass:wrong", "-noout"])
                .status
                .success()
        );
    }
    // DER: PKCS#8 only.
    let der = p(&dir, "k.der");
    ok(
        redc(&["genrsa", "--bits", "1024", "--der", "--passout", PASS, "-o", &der]),
        "der",
    );
    ok(
        openssl(&[
            "pkcs8",
            "-inform",
            "DER",
            "-in",
            &der,
            "-passin",
            PASS,
            "-out",
            &p(&dir, "plain.pem"),
        ]),
        "openssl pkcs8 -inform DER",
    );
    let no = p(&dir, "no.der");
    refused(
        redc(&[
            "genrsa",
            "--bits",
            "1024",
            "--der",
            "--format",
            "pkcs1",
            "--passout",
            PASS,
            "-o",
            &no,
        ]),
        "pkcs1 der",
    );
    refused(
        redc(&["genrsa", "--bits", "1024", "--cipher", "aes-128-cbc", "-o", &no]),
        "cipher alone",
    );
    assert!(!Path::new(&no).exists());
}

#[test]
fn bad_passphrases_and_truncated_keys() {
    let (plain, _) = key();
    let dir = fresh("keys", "refuse");
    let msg = p(&dir, "m");
    std::fs::write(&msg, b"m").unwrap();
    let out = p(&dir, "sig");
    let mut files = Vec::new();
    for (name, args) in [
        ("p8.pem", vec!["pkey", "-aes256"]),
        ("v1.pem", vec!["pkcs8", "-topk8", "-v1", "PBE-SHA1-3DES"]),
        ("trad.pem", vec!["rsa", "-traditional", "-aes128"]),
        ("trad3.pem", vec!["rsa", "-traditional", "-des3"]),
        (
            "p8.der",
            vec!["pkcs8", "-topk8", "-v2", "aes128", "-outform", "DER"],
        ),
    ] {
        let path = p(&dir, name);
        let mut a = args.clone();
        a.extend(["-in", plain, "-passout", PASS, "-out", &path]);
        ok(openssl(&a), name);
        files.push((name, path));
    }
    for (name, path) in &files {
        let e = refused(
            redc(&[
                "sign",
                "--key",
                path,
                "--passin",
                "pass:wrong horse",
                "--in",
                &msg,
                "-o",
                &out,
            ]),
            name,
        );
        assert!(e.contains("wrong passphrase"), "{name}: {e}");
        let e = refused(redc(&["sign", "--key", path, "--in", &msg, "-o", &out]), name);
        assert!(e.contains("encrypted") && e.contains("--passin"), "{name}: {e}");
        refused(
            redc(&[
                "decrypt",
                "--key",
                path,
                "--passin",
                "pass:nope",
                "--in",
                &msg,
                "-o",
                &out,
            ]),
            name,
        );
        // Truncated: a third of the file gone.
        let bytes = std::fs::read(path).unwrap();
        let cut = p(&dir, &format!("cut-{name}"));
        if name.ends_with(".der") {
            std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
        } else {
            // Drop body lines, keep the END line.
            let text = String::from_utf8(bytes).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            let keep = lines.len() * 2 / 3;
            let mut t = lines[..keep].join("\n");
            t.push('\n');
            t.push_str(lines[lines.len() - 1]);
            t.push('\n');
            std::fs::write(&cut, t).unwrap();
        }
        refused(
            redc(&["sign", "--key", &cut, "--passin", PASS, "--in", &msg, "-o", &out]),
            &format!("truncated {name}"),
        );
        assert!(!Path::new(&out).exists(), "{name}: no output on failure");
    }
}

/// openssl's spelling of a hash for `dgst -H` and `-pkeyopt`.
const NEW_HASHES: [&str; 7] = [
    "sha224",
    "sha512-224",
    "sha512-256",
    "sha3-224",
    "sha3-256",
    "sha3-384",
    "sha3-512",
];

#[test]
fn every_hash_both_ways() {
    let (key, spki) = key();
    let dir = fresh("keys", "hashes");
    let pubkey = p(&dir, "pub.pem");
    std::fs::write(&pubkey, spki).unwrap();
    let msg = p(&dir, "m");
    std::fs::write(&msg, b"every hash OpenSSL signs with").unwrap();
    for hash in NEW_HASHES.iter().chain(&["sha256", "sha512"]) {
        let dgst = format!("-{hash}");
        // PKCS#1 v1.5: byte-identical, both verify.
        let (ours, theirs) = (p(&dir, "s.redc"), p(&dir, "s.ossl"));
        ok(
            redc(&["sign", "--key", key, "--hash", hash, "--in", &msg, "-o", &ours]),
            hash,
        );
        ok(
            openssl(&["dgst", &dgst, "-sign", key, "-out", &theirs, &msg]),
            hash,
        );
        assert_eq!(
            std::fs::read(&ours).unwrap(),
            std::fs::read(&theirs).unwrap(),
            "{hash}"
        );
        let v = ok(
            redc(&[
                "verify", "--key", &pubkey, "--hash", hash, "--in", &msg, "--sig", &theirs,
            ]),
            hash,
        );
        assert_eq!(v.stdout, b"Verified OK\n");
        // PSS with the MGF1 hash the same and different (sha1, sha3-256).
        for mgf1 in [*hash, "sha1", "sha3-256"] {
            ok(
                redc(&[
                    "sign",
                    "--key",
                    key,
                    "--hash",
                    hash,
                    "--scheme",
                    "pss",
                    "--mgf1-hash",
                    mgf1,
                    "--in",
                    &msg,
                    "-o",
                    &ours,
                ]),
                hash,
            );
            let pss = ["-sigopt", "rsa_padding_mode:pss", "-sigopt"];
            let mgf = format!("rsa_mgf1_md:{mgf1}");
            let salt = ["-sigopt", "rsa_pss_saltlen:digest"];
            let mut a = vec!["dgst", &dgst, "-verify", &pubkey];
            a.extend(pss);
            a.push(&mgf);
            a.extend(salt);
            let sig_arg = ours.clone();
            a.extend(["-signature", &sig_arg, &msg]);
            let v = ok(openssl(&a), &format!("openssl verifies {hash}/{mgf1}"));
            assert_eq!(v.stdout, b"Verified OK\n");
            let mut a = vec!["dgst", &dgst, "-sign", key];
            a.extend(pss);
            a.push(&mgf);
            a.extend(salt);
            a.extend(["-out", &theirs, &msg]);
            ok(openssl(&a), hash);
            let v = ok(
                redc(&[
                    "verify",
                    "--key",
                    &pubkey,
                    "--hash",
                    hash,
                    "--scheme",
                    "pss",
                    "--mgf1-hash",
                    mgf1,
                    "--in",
                    &msg,
                    "--sig",
                    &theirs,
                ]),
                &format!("redc verifies {hash}/{mgf1}"),
            );
            assert_eq!(v.stdout, b"Verified OK\n");
            if mgf1 != *hash {
                // The wrong MGF1 hash does not verify.
                let v = redc(&[
                    "verify", "--key", &pubkey, "--hash", hash, "--scheme", "pss", "--in", &msg, "--sig",
                    &theirs,
                ]);
                assert_eq!(v.status.code(), Some(1), "{hash}/{mgf1}");
            }
        }
        // OAEP with its own MGF1 hash, both ways.
        for mgf1 in [*hash, "sha1"] {
            let secret = p(&dir, "secret");
            std::fs::write(&secret, b"oaep secret").unwrap();
            let (ct, pt) = (p(&dir, "ct"), p(&dir, "pt"));
            let opts = [
                "-pkeyopt".to_string(),
                "rsa_padding_mode:oaep".into(),
                "-pkeyopt".into(),
                format!("rsa_oaep_md:{hash}"),
                "-pkeyopt".into(),
                format!("rsa_mgf1_md:{mgf1}"),
            ];
            let opts: Vec<&str> = opts.iter().map(String::as_str).collect();
            ok(
                redc(&[
                    "encrypt",
                    "--key",
                    &pubkey,
                    "--hash",
                    hash,
                    "--mgf1-hash",
                    mgf1,
                    "--in",
                    &secret,
                    "-o",
                    &ct,
                ]),
                hash,
            );
            let mut a = vec!["pkeyutl", "-decrypt", "-inkey", key, "-in", &ct, "-out", &pt];
            a.extend(&opts);
            ok(openssl(&a), &format!("openssl decrypts {hash}/{mgf1}"));
            assert_eq!(std::fs::read(&pt).unwrap(), b"oaep secret");
            let mut a = vec![
                "pkeyutl", "-encrypt", "-pubin", "-inkey", &pubkey, "-in", &secret, "-out", &ct,
            ];
            a.extend(&opts);
            ok(openssl(&a), hash);
            ok(
                redc(&[
                    "decrypt",
                    "--key",
                    key,
                    "--hash",
                    hash,
                    "--mgf1-hash",
                    mgf1,
                    "--in",
                    &ct,
                    "-o",
                    &pt,
                ]),
                &format!("redc decrypts {hash}/{mgf1}"),
            );
            assert_eq!(std::fs::read(&pt).unwrap(), b"oaep secret");
        }
    }
    // SHA-1 stays verify-only for signatures.
    refused(
        redc(&[
            "sign",
            "--key",
            key,
            "--hash",
            "sha1",
            "--in",
            &msg,
            "-o",
            &p(&dir, "x"),
        ]),
        "sha1",
    );
    // An unknown hash is a usage error: clap's message (its first line names
    // the value, then the possible values) and exit 2, nothing written.
    let o = redc(&[
        "sign",
        "--key",
        key,
        "--hash",
        "md5",
        "--in",
        &msg,
        "-o",
        &p(&dir, "x"),
    ]);
    let e = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "md5: {e}");
    assert!(e.lines().next().unwrap_or("").contains("md5"), "{e}");
    assert!(e.contains("sha3-256"), "{e}");
    assert!(!std::path::Path::new(&p(&dir, "x")).exists());
}

#[test]
fn prehashed_sign_and_verify() {
    let (key, spki) = key();
    let dir = fresh("keys", "prehashed");
    let pubkey = p(&dir, "pub.pem");
    std::fs::write(&pubkey, spki).unwrap();
    let msg = p(&dir, "m");
    std::fs::write(&msg, b"hashed elsewhere").unwrap();
    for hash in ["sha256", "sha384", "sha3-256"] {
        let digest = p(&dir, "d.bin");
        ok(
            openssl(&["dgst", &format!("-{hash}"), "-binary", "-out", &digest, &msg]),
            hash,
        );
        let hex: String = std::fs::read(&digest)
            .unwrap()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        // OpenSSL signs the digest (pkeyutl -sign, PKCS#1 v1.5 with the DigestInfo).
        let theirs = p(&dir, "s.ossl");
        ok(
            openssl(&[
                "pkeyutl",
                "-sign",
                "-inkey",
                key,
                "-in",
                &digest,
                "-out",
                &theirs,
                "-pkeyopt",
                &format!("digest:{hash}"),
            ]),
            hash,
        );
        let (a, b) = (p(&dir, "s.pre"), p(&dir, "s.hex"));
        ok(
            redc(&[
                "sign",
                "--key",
                key,
                "--hash",
                hash,
                "--prehashed",
                "--in",
                &digest,
                "-o",
                &a,
            ]),
            hash,
        );
        ok(
            redc(&["sign", "--key", key, "--hash", hash, "--digest", &hex, "-o", &b]),
            hash,
        );
        let want = std::fs::read(&theirs).unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), want, "{hash}");
        assert_eq!(std::fs::read(&b).unwrap(), want, "{hash}");
        // From stdin too.
        let s = redc_stdin(
            &[
                "sign",
                "--key",
                key,
                "--hash",
                hash,
                "--prehashed",
                "--in",
                "-",
                "-o",
                "-",
            ],
            &std::fs::read(&digest).unwrap(),
        );
        assert_eq!(ok(s, "stdin").stdout, want);
        for args in [vec!["--prehashed", "--in", &digest], vec!["--digest", &hex]] {
            let mut a = vec!["verify", "--key", &pubkey, "--hash", hash, "--sig", &theirs];
            a.extend(args);
            assert_eq!(ok(redc(&a), hash).stdout, b"Verified OK\n");
        }
        // PSS on a digest: openssl pkeyutl verifies ours.
        ok(
            redc(&[
                "sign", "--key", key, "--hash", hash, "--scheme", "pss", "--digest", &hex, "-o", &a,
            ]),
            hash,
        );
        let v = ok(
            openssl(&[
                "pkeyutl",
                "-verify",
                "-pubin",
                "-inkey",
                &pubkey,
                "-in",
                &digest,
                "-sigfile",
                &a,
                "-pkeyopt",
                &format!("digest:{hash}"),
                "-pkeyopt",
                "rsa_padding_mode:pss",
                "-pkeyopt",
                "rsa_pss_saltlen:digest",
            ]),
            hash,
        );
        assert!(String::from_utf8_lossy(&v.stdout).contains("Signature Verified Successfully"));
    }
    // A digest of the wrong length is refused, nothing written.
    let out = p(&dir, "never");
    let e = refused(
        redc(&["sign", "--key", key, "--digest", "abcd", "-o", &out]),
        "short",
    );
    assert!(e.contains("2 bytes") && e.contains("32"), "{e}");
    refused(
        redc(&["sign", "--key", key, "--prehashed", "--in", &msg, "-o", &out]),
        "msg as digest",
    );
    refused(
        redc(&["sign", "--key", key, "--digest", "zz", "-o", &out]),
        "not hex",
    );
    assert!(!Path::new(&out).exists());
}

#[test]
fn mismatched_pem_labels() {
    let (key, spki) = key();
    let dir = fresh("keys", "labels");
    let text = String::from_utf8(std::fs::read(key).unwrap()).unwrap();
    // PKCS#8 inside `RSA PRIVATE KEY`.
    let swapped = text.replace("PRIVATE KEY", "RSA PRIVATE KEY");
    let f = p(&dir, "p8-as-rsa.pem");
    std::fs::write(&f, swapped).unwrap();
    assert_eq!(
        &ok(redc(&["pubout", "--key", &f]), "p8 in RSA label").stdout,
        spki
    );
    // OpenSSL reads it as well (the oracle for "accepted").
    ok(openssl(&["pkey", "-in", &f, "-noout"]), "openssl reads it");
    // SPKI inside `RSA PUBLIC KEY`.
    let spki_text = String::from_utf8(spki.clone())
        .unwrap()
        .replace("PUBLIC KEY", "RSA PUBLIC KEY");
    let f = p(&dir, "spki-as-rsa.pem");
    std::fs::write(&f, spki_text).unwrap();
    assert_eq!(
        &ok(redc(&["pubout", "--key", &f]), "spki in RSA label").stdout,
        spki
    );
    // PKCS#1 inside `PRIVATE KEY`.
    let trad = ok(openssl(&["rsa", "-in", key, "-traditional"]), "traditional").stdout;
    let trad = String::from_utf8(trad)
        .unwrap()
        .replace("RSA PRIVATE KEY", "PRIVATE KEY");
    let f = p(&dir, "rsa-as-p8.pem");
    std::fs::write(&f, trad).unwrap();
    assert_eq!(
        &ok(redc(&["pubout", "--key", &f]), "pkcs1 in p8 label").stdout,
        spki
    );
}

#[test]
fn rsa_pss_keys_both_ways() {
    let dir = fresh("keys", "pss");
    let msg = p(&dir, "m");
    std::fs::write(&msg, b"RSA-PSS keys").unwrap();
    let np = p(&dir, "np.pem");
    let wp = p(&dir, "wp.pem");
    openssl_genpkey(&np, "RSA-PSS", 1024, &[]);
    openssl_genpkey(
        &wp,
        "RSA-PSS",
        1024,
        &[
            "rsa_pss_keygen_md:sha384",
            "rsa_pss_keygen_mgf1_md:sha256",
            "rsa_pss_keygen_saltlen:40",
        ],
    );
    // `openssl rsa -traditional`: `RSA-PSS PRIVATE KEY`, plain and encrypted.
    let trad = p(&dir, "trad.pem");
    ok(
        openssl(&["rsa", "-in", &np, "-traditional", "-out", &trad]),
        "traditional",
    );
    assert!(
        std::fs::read(&trad)
            .unwrap()
            .starts_with(b"-----BEGIN RSA-PSS PRIVATE KEY-----\n")
    );
    let trad_enc = p(&dir, "trad-enc.pem");
    ok(
        openssl(&[
            "rsa",
            "-in",
            &np,
            "-traditional",
            "-aes128",
            "-passout",
            PASS,
            "-out",
            &trad_enc,
        ]),
        "traditional -aes128",
    );
    let wp_enc = p(&dir, "wp-enc.pem");
    ok(
        openssl(&["pkey", "-in", &wp, "-aes256", "-passout", PASS, "-out", &wp_enc]),
        "pkey -aes256",
    );
    // (key file, the OpenSSL key with the same public half, hash it signs with)
    let cases = [
        (np.clone(), np.clone(), "sha256"),
        (wp.clone(), wp.clone(), "sha384"),
        (trad.clone(), np.clone(), "sha256"),
        (trad_enc.clone(), np.clone(), "sha256"),
        (wp_enc.clone(), wp.clone(), "sha384"),
    ];
    for (file, ossl_key, hash) in &cases {
        let what = file.rsplit('/').next().unwrap();
        // The SPKI keeps the id-RSASSA-PSS identifier and parameters, byte for byte.
        let theirs = ok(openssl(&["pkey", "-in", ossl_key, "-pubout"]), "pkey -pubout").stdout;
        let ours = ok(redc(&["pubout", "--key", file, "--passin", PASS]), what).stdout;
        assert_eq!(ours, theirs, "{what}");
        let pubkey = p(&dir, "pub.pem");
        std::fs::write(&pubkey, &theirs).unwrap();
        // redc signs with the key's defaults; openssl verifies with its own.
        let sig = p(&dir, "sig.redc");
        ok(
            redc(&["sign", "--key", file, "--passin", PASS, "--in", &msg, "-o", &sig]),
            what,
        );
        let v = ok(
            openssl(&[
                "dgst",
                &format!("-{hash}"),
                "-verify",
                &pubkey,
                "-signature",
                &sig,
                &msg,
            ]),
            &format!("openssl verifies {what}"),
        );
        assert_eq!(v.stdout, b"Verified OK\n");
        // openssl signs; redc verifies with the SPKI and with the private key file.
        let theirs_sig = p(&dir, "sig.ossl");
        ok(
            openssl(&[
                "dgst",
                &format!("-{hash}"),
                "-sign",
                ossl_key,
                "-out",
                &theirs_sig,
                &msg,
            ]),
            what,
        );
        for key in [&pubkey, file] {
            let v = ok(
                redc(&[
                    "verify",
                    "--key",
                    key,
                    "--passin",
                    PASS,
                    "--in",
                    &msg,
                    "--sig",
                    &theirs_sig,
                ]),
                &format!("redc verifies {what}"),
            );
            assert_eq!(v.stdout, b"Verified OK\n");
        }
        // PKCS#1 v1.5 and encryption are refused, nothing written.
        let out = p(&dir, "never");
        let e = refused(
            redc(&[
                "sign", "--key", file, "--passin", PASS, "--scheme", "pkcs1", "--in", &msg, "-o", &out,
            ]),
            what,
        );
        assert!(e.contains("RSA-PSS"), "{e}");
        refused(
            redc(&[
                "verify",
                "--key",
                &pubkey,
                "--scheme",
                "pkcs1",
                "--in",
                &msg,
                "--sig",
                &theirs_sig,
            ]),
            what,
        );
        refused(
            redc(&["encrypt", "--key", &pubkey, "--in", &msg, "-o", &out]),
            what,
        );
        refused(
            redc(&[
                "decrypt", "--key", file, "--passin", PASS, "--in", &sig, "-o", &out,
            ]),
            what,
        );
        assert!(!Path::new(&out).exists());
    }
    // The parameters' restrictions: hash, MGF1 hash, minimum salt.
    let out = p(&dir, "never");
    for bad in [
        vec!["--hash", "sha256"],
        vec!["--mgf1-hash", "sha384"],
        vec!["--salt-len", "39"],
    ] {
        let mut a = vec!["sign", "--key", wp.as_str(), "--in", &msg, "-o", &out];
        a.extend(&bad);
        let e = refused(redc(&a), &format!("{bad:?}"));
        assert!(e.contains("RSA-PSS key"), "{e}");
    }
    assert!(!Path::new(&out).exists());
    // A salt of 20 < 40 does not verify against the key: OpenSSL makes the
    // signature with the same numbers as a plain RSA key (the PKCS#1 body of
    // `openssl rsa -traditional` under the plain label).
    let wp_trad = ok(openssl(&["rsa", "-in", &wp, "-traditional"]), "traditional").stdout;
    let plain = p(&dir, "wp-plain.pem");
    std::fs::write(
        &plain,
        String::from_utf8(wp_trad)
            .unwrap()
            .replace("RSA-PSS PRIVATE KEY", "RSA PRIVATE KEY"),
    )
    .unwrap();
    let wp_pub = p(&dir, "wp.pub");
    ok(
        openssl(&["pkey", "-in", &wp, "-pubout", "-out", &wp_pub]),
        "pubout",
    );
    for (salt, verdict) in [("20", Some(1)), ("40", Some(0)), ("41", Some(0))] {
        let sig = p(&dir, "salt.sig");
        ok(
            openssl(&[
                "dgst",
                "-sha384",
                "-sign",
                &plain,
                "-sigopt",
                "rsa_padding_mode:pss",
                "-sigopt",
                "rsa_mgf1_md:sha256",
                "-sigopt",
                &format!("rsa_pss_saltlen:{salt}"),
                "-out",
                &sig,
                &msg,
            ]),
            "salt",
        );
        let v = redc(&["verify", "--key", &wp_pub, "--in", &msg, "--sig", &sig]);
        assert_eq!(v.status.code(), verdict, "salt {salt}");
        // The same signature under a plain view of the key verifies whatever the salt.
        let v = redc(&[
            "verify",
            "--key",
            &plain,
            "--scheme",
            "pss",
            "--hash",
            "sha384",
            "--mgf1-hash",
            "sha256",
            "--in",
            &msg,
            "--sig",
            &sig,
        ]);
        assert_eq!(v.status.code(), Some(0), "plain, salt {salt}");
    }

    // redc writes RSA-PSS keys; OpenSSL reads their restrictions and uses them.
    for (extra, shows) in [
        (vec![], "No PSS parameter restrictions"),
        (
            vec!["--hash", "sha512", "--mgf1-hash", "sha384", "--salt-len", "30"],
            "Hash Algorithm: SHA2-512",
        ),
        (vec!["--hash", "sha224"], "Hash Algorithm: SHA2-224"),
    ] {
        let key = p(&dir, "gen.pem");
        let _ = std::fs::remove_file(&key);
        let mut a = vec!["genrsa", "--bits", "1024", "--pss", "-o", &key];
        a.extend(&extra);
        ok(redc(&a), "genrsa --pss");
        let text = ok(
            openssl(&["pkey", "-in", &key, "-text", "-noout"]),
            "openssl pkey -text",
        )
        .stdout;
        let text = String::from_utf8_lossy(&text);
        assert!(text.contains(shows), "{extra:?}: {text}");
        if extra.len() > 2 {
            assert!(
                text.contains("MGF1 with SHA2-384") && text.contains("Minimum Salt Length: 30"),
                "{text}"
            );
        }
        let hash = if extra.is_empty() { "sha256" } else { extra[1] };
        let sig = p(&dir, "gen.sig");
        ok(
            openssl(&["dgst", &format!("-{hash}"), "-sign", &key, "-out", &sig, &msg]),
            "openssl signs",
        );
        let v = ok(
            redc(&["verify", "--key", &key, "--in", &msg, "--sig", &sig]),
            "redc verifies",
        );
        assert_eq!(v.stdout, b"Verified OK\n");
        ok(
            redc(&["sign", "--key", &key, "--in", &msg, "-o", &sig]),
            "redc signs",
        );
        let pubkey = p(&dir, "gen.pub");
        ok(
            openssl(&["pkey", "-in", &key, "-pubout", "-out", &pubkey]),
            "pubout",
        );
        let v = ok(
            openssl(&[
                "dgst",
                &format!("-{hash}"),
                "-verify",
                &pubkey,
                "-signature",
                &sig,
                &msg,
            ]),
            "openssl verifies",
        );
        assert_eq!(v.stdout, b"Verified OK\n");
    }
    refused(
        redc(&[
            "genrsa", "--bits", "1024", "--pss", "--format", "pkcs1", "-o", &out,
        ]),
        "pss pkcs1",
    );
}

/// Big-endian hex of `x` for `openssl asn1parse -genconf` (`INTEGER:0x...`).
fn hex_of(x: &num_bigint::BigUint) -> String {
    format!("0x{}", x.to_str_radix(16))
}

/// A PKCS#1 DER key from its numbers, encoded by `openssl asn1parse -genconf`.
fn pkcs1_der(dir: &Path, name: &str, fields: &[(&str, String)]) -> String {
    let mut conf = String::from("asn1=SEQUENCE:rsa\n[rsa]\n");
    for (k, v) in fields {
        conf.push_str(&format!("{k}=INTEGER:{v}\n"));
    }
    let cnf = p(dir, &format!("{name}.cnf"));
    std::fs::write(&cnf, conf).unwrap();
    let der = p(dir, &format!("{name}.der"));
    ok(
        openssl(&["asn1parse", "-genconf", &cnf, "-out", &der, "-noout"]),
        "asn1parse -genconf",
    );
    der
}

fn openssl_prime(bits: u32) -> num_bigint::BigUint {
    let out = ok(
        openssl(&["prime", "-generate", "-bits", &bits.to_string(), "-hex"]),
        "prime",
    )
    .stdout;
    num_bigint::BigUint::parse_bytes(String::from_utf8(out).unwrap().trim().as_bytes(), 16).unwrap()
}

/// RSA key numbers for primes (or not) p, q and e = 65537, by num-bigint:
/// None when e is not invertible.
fn rsa_fields(p_: &num_bigint::BigUint, q: &num_bigint::BigUint) -> Option<Vec<(&'static str, String)>> {
    use num_bigint::BigUint;
    use num_integer::Integer;
    let one = BigUint::from(1u32);
    let e = BigUint::from(65537u32);
    let (p1, q1) = (p_ - &one, q - &one);
    let lambda = p1.lcm(&q1);
    let d = e.modinv(&lambda)?;
    let qinv = q.modinv(p_)?;
    Some(vec![
        ("version", "0".into()),
        ("n", hex_of(&(p_ * q))),
        ("e", hex_of(&e)),
        ("d", hex_of(&d)),
        ("p", hex_of(p_)),
        ("q", hex_of(q)),
        ("dp", hex_of(&(&d % &p1))),
        ("dq", hex_of(&(&d % &q1))),
        ("qinv", hex_of(&qinv)),
    ])
}

/// `openssl rsa -check` on a DER key: it prints `RSA key ok` or `RSA key
/// not ok` (with status 0 either way in OpenSSL 3.0).
fn openssl_says_ok(der: &str) -> bool {
    openssl(&["rsa", "-inform", "DER", "-in", der, "-check", "-noout"]).stdout == b"RSA key ok\n"
}

#[test]
fn pkey_text_check_and_messages() {
    let (key, spki) = key();
    let dir = fresh("keys", "pkey");
    let pss = p(&dir, "pss.pem");
    openssl_genpkey(&pss, "RSA-PSS", 1024, &["rsa_pss_keygen_md:sha256"]);
    let pss_bare = p(&dir, "pss-bare.pem");
    openssl_genpkey(&pss_bare, "RSA-PSS", 1024, &[]);
    let enc = p(&dir, "enc.pem");
    ok(
        openssl(&["pkey", "-in", key, "-aes128", "-passout", PASS, "-out", &enc]),
        "encrypt",
    );
    for k in [key.as_str(), &pss, &pss_bare, &enc] {
        // --text: byte for byte what openssl pkey -text -noout prints.
        let theirs = ok(
            openssl(&["pkey", "-in", k, "-passin", PASS, "-text", "-noout"]),
            "openssl -text",
        )
        .stdout;
        let ours = ok(
            redc(&["pkey", "--key", k, "--passin", PASS, "--text"]),
            "redc --text",
        )
        .stdout;
        assert_eq!(
            String::from_utf8_lossy(&ours),
            String::from_utf8_lossy(&theirs),
            "{k}"
        );
        // The public key and its text, nothing private.
        let pubpem = ok(openssl(&["pkey", "-in", k, "-passin", PASS, "-pubout"]), "pubout").stdout;
        let pubfile = p(&dir, "pub.pem");
        std::fs::write(&pubfile, &pubpem).unwrap();
        let pubtext = ok(
            openssl(&["pkey", "-pubin", "-in", &pubfile, "-text", "-noout"]),
            "pubin -text",
        )
        .stdout;
        let ours = ok(
            redc(&["pkey", "--key", k, "--passin", PASS, "--pubout", "--text"]),
            "--pubout",
        )
        .stdout;
        assert_eq!(ours, [pubpem.clone(), pubtext.clone()].concat(), "{k}");
        let ours = ok(redc(&["pkey", "--key", &pubfile, "--text"]), "public --text").stdout;
        assert_eq!(ours, pubtext, "{k}");
        // The summary: size, exponent, type; no private parts.
        let summary = ok(redc(&["pkey", "--key", k, "--passin", PASS]), "summary").stdout;
        let summary = String::from_utf8(summary).unwrap();
        assert!(summary.contains("publicExponent: 65537 (0x10001)"), "{summary}");
        assert!(
            !summary.contains("privateExponent") && !summary.contains("prime1"),
            "{summary}"
        );
        let kind = if k.contains("pss") {
            "Type: RSA-PSS"
        } else {
            "Type: RSA\n"
        };
        assert!(summary.contains(kind), "{summary}");
        // --check agrees with openssl rsa -check on a good key.
        ok(
            openssl(&["pkey", "-in", k, "-passin", PASS, "-check", "-noout"]),
            "openssl -check",
        );
        let c = ok(
            redc(&["pkey", "--key", k, "--passin", PASS, "--check"]),
            "--check",
        )
        .stdout;
        assert!(String::from_utf8(c).unwrap().ends_with("RSA key ok\n"));
    }
    assert!(
        String::from_utf8_lossy(&ok(redc(&["pkey", "--key", key]), "size").stdout)
            .starts_with("Private-Key: (2048 bit, 2 primes)\n")
    );
    let pubfile = p(&dir, "spki.pem");
    std::fs::write(&pubfile, spki).unwrap();
    refused(
        redc(&["pkey", "--key", &pubfile, "--check"]),
        "check a public key",
    );

    // Inconsistent and composite keys: redc and OpenSSL both reject them.
    let q = openssl_prime(512);
    let (mut composite, mut fields) = (None, None);
    while fields.is_none() {
        let c = openssl_prime(256) * openssl_prime(256);
        fields = rsa_fields(&c, &q);
        composite = Some(c);
    }
    let composite = composite.unwrap();
    assert_eq!(composite.bits(), 511.max(composite.bits()));
    let bad_p = pkcs1_der(&dir, "composite", &fields.unwrap());
    assert!(!openssl_says_ok(&bad_p));
    let o = redc(&["pkey", "--key", &bad_p, "--check"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).ends_with("RSA key error: p is not prime\n"));

    let p_ = openssl_prime(512);
    let mut good = None;
    while good.is_none() {
        good = rsa_fields(&p_, &openssl_prime(512));
    }
    let mut fields = good.unwrap();
    let good_fields = fields.clone();
    let good_der = pkcs1_der(&dir, "good", &fields);
    assert!(openssl_says_ok(&good_der));
    let c = ok(
        redc(&["pkey", "--key", &good_der, "--check"]),
        "good constructed key",
    )
    .stdout;
    assert!(String::from_utf8(c).unwrap().ends_with("RSA key ok\n"));
    // qInv off by one.
    let qinv = num_bigint::BigUint::parse_bytes(&fields[8].1.as_bytes()[2..], 16).unwrap();
    fields[8].1 = hex_of(&((qinv + 1u32) % &p_));
    let bad_qinv = pkcs1_der(&dir, "qinv", &fields);
    assert!(!openssl_says_ok(&bad_qinv));
    let o = redc(&["pkey", "--key", &bad_qinv, "--check"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("RSA key error: qInv"),
        "{o:?}"
    );

    // A wrong version is reported at the version, a bad modulus at the modulus.
    let mut fields = good_fields;
    fields[0].1 = "5".into();
    let v5 = pkcs1_der(&dir, "v5", &fields);
    let e = refused(redc(&["pkey", "--key", &v5]), "version 5");
    assert!(e.contains("version 5"), "{e}");
    let v5_pem = p(&dir, "v5.pem");
    ok(
        openssl(&["base64", "-in", &v5, "-out", &p(&dir, "v5.b64")]),
        "base64",
    );
    let b64 = std::fs::read_to_string(p(&dir, "v5.b64")).unwrap();
    std::fs::write(
        &v5_pem,
        format!("-----BEGIN RSA PRIVATE KEY-----\n{b64}-----END RSA PRIVATE KEY-----\n"),
    )
    .unwrap();
    let e = refused(redc(&["pkey", "--key", &v5_pem]), "version 5 PEM");
    assert!(e.contains("version 5") && !e.contains("modulus"), "{e}");
    fields[0].1 = "0".into();
    fields[1].1 = format!("-{}", fields[1].1);
    let neg = pkcs1_der(&dir, "neg", &fields);
    let e = refused(redc(&["pkey", "--key", &neg]), "negative modulus");
    assert!(e.contains("modulus:"), "{e}");
}
