//! Issue 13 item 2: the provider through OpenSSL's own command-line tools,
//! every output cross-checked with OpenSSL's default provider (the oracle):
//! PKCS#1 v1.5 signatures byte-identical, PSS and OAEP verified/decrypted
//! across in both directions, and a trace line proving redc did the work.

mod common;
use common::*;

const MSG: &[u8] = b"The quick brown fox jumps over the lazy dog\n";

#[test]
fn provider_loads_and_lists_its_version() {
    let dir = need_openssl!();
    let (out, _) = openssl_ok(&["list", "-providers"], &with_redc(dir));
    assert!(out.contains("  redc\n"), "{out}");
    let version = format!("version: {}", env!("CARGO_PKG_VERSION"));
    assert!(out.contains(&version), "{out}");
    let (algs, _) = openssl_ok(&["list", "-signature-algorithms"], &with_redc(dir));
    assert!(algs.contains("@ redc"), "{algs}");
}

#[test]
fn dgst_pkcs1_signatures_are_identical_to_the_default_providers() {
    let dir = need_openssl!();
    let (key, public, _) = key(2048);
    let msg = write("dgst.msg", MSG);
    for md in ["-sha1", "-sha256", "-sha384", "-sha512", "-sha3-256", "-sha3-512"] {
        let ours = format!("dgst{md}.redc");
        let theirs = format!("dgst{md}.default");
        let (_, err) = openssl_ok(&["dgst", md, "-sign", &key, "-out", &ours, &msg], &with_redc(dir));
        assert!(redc_did(&err, "sign Pkcs1"), "{err}");
        openssl_ok(&["dgst", md, "-sign", &key, "-out", &theirs, &msg], &[]);
        assert_eq!(read(&ours), read(&theirs), "{md}");
        // redc verifies the default provider's signature, and refuses a tampered one.
        let (out, err) = openssl_ok(
            &["dgst", md, "-verify", &public, "-signature", &theirs, &msg],
            &with_redc(dir),
        );
        assert!(
            out.contains("Verified OK") && redc_did(&err, "verify Pkcs1"),
            "{out}{err}"
        );
        let mut bad = read(&theirs);
        bad[100] ^= 0x40;
        let bad = write(&format!("dgst{md}.bad"), &bad);
        let o = openssl(
            &["dgst", md, "-verify", &public, "-signature", &bad, &msg],
            &with_redc(dir),
        );
        assert!(!o.status.success(), "a tampered signature verified");
    }
}

#[test]
fn dgst_pss_signatures_verify_across_both_ways() {
    let dir = need_openssl!();
    let (key, public, _) = key(2048);
    let msg = write("pss.msg", MSG);
    for (md, salt) in [
        ("-sha256", "digest"),
        ("-sha256", "max"),
        ("-sha256", "auto"),
        ("-sha384", "17"),
        ("-sha512", "0"),
        ("-sha3-384", "digest"),
    ] {
        let opts = ["-sigopt", "rsa_padding_mode:pss", "-sigopt"];
        let salt_opt = format!("rsa_pss_saltlen:{salt}");
        let sig = format!("pss{md}{salt}.sig");
        // redc signs, the default provider verifies.
        let mut args = vec!["dgst", md, "-sign", &key, "-out", &sig];
        args.extend(opts);
        args.push(&salt_opt);
        args.push(&msg);
        let (_, err) = openssl_ok(&args, &with_redc(dir));
        assert!(redc_did(&err, "sign Pss"), "{err}");
        let mut verify = vec!["dgst", md, "-verify", &public, "-signature", &sig];
        verify.extend(opts);
        verify.push(&salt_opt);
        verify.push(&msg);
        let (out, _) = openssl_ok(&verify, &[]);
        assert!(out.contains("Verified OK"), "{md} {salt}: {out}");
        // The default provider signs, redc verifies.
        let sig2 = format!("pss{md}{salt}.default");
        args[5] = &sig2;
        openssl_ok(&args, &[]);
        verify[5] = &sig2;
        let (out, err) = openssl_ok(&verify, &with_redc(dir));
        assert!(
            out.contains("Verified OK") && redc_did(&err, "verify Pss"),
            "{md} {salt}: {out}{err}"
        );
    }
    // A salt length other than the one the signature has is refused.
    let sig = "pss-salt17.sig";
    openssl_ok(
        &[
            "dgst",
            "-sha256",
            "-sign",
            &key,
            "-out",
            sig,
            "-sigopt",
            "rsa_padding_mode:pss",
            "-sigopt",
            "rsa_pss_saltlen:17",
            &msg,
        ],
        &[],
    );
    let o = openssl(
        &[
            "dgst",
            "-sha256",
            "-verify",
            &public,
            "-signature",
            sig,
            "-sigopt",
            "rsa_padding_mode:pss",
            "-sigopt",
            "rsa_pss_saltlen:digest",
            &msg,
        ],
        &with_redc(dir),
    );
    assert!(!o.status.success(), "salt 17 verified as salt 32");
}

#[test]
fn pkeyutl_sign_and_verify() {
    let dir = need_openssl!();
    let (key, public, _) = key(2048);
    // The SHA-256 of MSG, computed by openssl.
    let digest = "pk.dgst".to_string();
    let msg = write("pk.msg", MSG);
    openssl_ok(&["dgst", "-sha256", "-binary", "-out", &digest, &msg], &[]);
    // Digest signature (DigestInfo) and raw type-1 signature: byte-identical.
    for (name, opts) in [("digest", vec!["-pkeyopt", "digest:sha256"]), ("raw", vec![])] {
        let (ours, theirs) = (format!("pk-{name}.redc"), format!("pk-{name}.default"));
        let mut args = vec!["pkeyutl", "-sign", "-inkey", &key, "-in", &digest, "-out", &ours];
        args.extend(&opts);
        let (_, err) = openssl_ok(&args, &with_redc(dir));
        assert!(redc_did(&err, "sign Pkcs1"), "{err}");
        args[7] = &theirs;
        openssl_ok(&args, &[]);
        assert_eq!(read(&ours), read(&theirs), "{name}");
        let mut verify = vec![
            "pkeyutl", "-verify", "-pubin", "-inkey", &public, "-in", &digest, "-sigfile", &theirs,
        ];
        verify.extend(&opts);
        let (out, err) = openssl_ok(&verify, &with_redc(dir));
        assert!(
            out.contains("Signature Verified Successfully") && redc_did(&err, "verify"),
            "{out}{err}"
        );
    }
    // -verifyrecover gives back what the default provider signed.
    for (opts, expected) in [
        (vec!["-pkeyopt", "digest:sha256"], read(&digest)),
        (vec![], read(&digest)),
    ] {
        let mut args = vec![
            "pkeyutl",
            "-verifyrecover",
            "-pubin",
            "-inkey",
            &public,
            "-in",
            "pk-raw.default",
            "-out",
            "pk.rec",
        ];
        if !opts.is_empty() {
            args[6] = "pk-digest.default";
        }
        args.extend(&opts);
        let (_, err) = openssl_ok(&args, &with_redc(dir));
        assert!(redc_did(&err, "verify-recover"), "{err}");
        assert_eq!(read("pk.rec"), expected);
    }
    // PSS on a digest: redc signs, default verifies.
    let pss = "pk-pss.redc";
    let opts = [
        "-pkeyopt",
        "digest:sha256",
        "-pkeyopt",
        "rsa_padding_mode:pss",
        "-pkeyopt",
        "rsa_pss_saltlen:digest",
    ];
    let mut args = vec!["pkeyutl", "-sign", "-inkey", &key, "-in", &digest, "-out", pss];
    args.extend(opts);
    openssl_ok(&args, &with_redc(dir));
    let mut verify = vec![
        "pkeyutl", "-verify", "-pubin", "-inkey", &public, "-in", &digest, "-sigfile", pss,
    ];
    verify.extend(opts);
    let (out, _) = openssl_ok(&verify, &[]);
    assert!(out.contains("Signature Verified Successfully"), "{out}");
}

#[test]
fn pkeyutl_encrypt_and_decrypt_across() {
    let dir = need_openssl!();
    let (key, public, _) = key(2048);
    let msg = write("enc.msg", MSG);
    let paddings: [(&str, Vec<&str>); 5] = [
        ("pkcs1", vec![]),
        (
            // Java's OAEPWithSHA-256AndMGF1Padding: MGF1 over SHA-1.
            "oaep-sha256-mgf1-sha1",
            vec![
                "-pkeyopt",
                "rsa_padding_mode:oaep",
                "-pkeyopt",
                "rsa_oaep_md:sha256",
                "-pkeyopt",
                "rsa_mgf1_md:sha1",
            ],
        ),
        ("oaep-sha1", vec!["-pkeyopt", "rsa_padding_mode:oaep"]),
        (
            "oaep-sha256-label",
            vec![
                "-pkeyopt",
                "rsa_padding_mode:oaep",
                "-pkeyopt",
                "rsa_oaep_md:sha256",
                "-pkeyopt",
                "rsa_oaep_label:0a0b0c",
            ],
        ),
        (
            "oaep-sha512",
            vec![
                "-pkeyopt",
                "rsa_padding_mode:oaep",
                "-pkeyopt",
                "rsa_oaep_md:sha512",
                "-pkeyopt",
                "rsa_mgf1_md:sha512",
            ],
        ),
    ];
    let (redc, none) = (with_redc(dir), Vec::new());
    for (name, opts) in paddings {
        for (enc_redc, label) in [(true, "redc-to-default"), (false, "default-to-redc")] {
            let (ct, pt) = (format!("enc-{name}-{label}.ct"), format!("enc-{name}-{label}.pt"));
            let mut enc = vec![
                "pkeyutl", "-encrypt", "-pubin", "-inkey", &public, "-in", &msg, "-out", &ct,
            ];
            enc.extend(&opts);
            let mut dec = vec!["pkeyutl", "-decrypt", "-inkey", &key, "-in", &ct, "-out", &pt];
            dec.extend(&opts);
            let (_, err) = openssl_ok(&enc, if enc_redc { &redc } else { &none });
            assert_eq!(redc_did(&err, "encrypt"), enc_redc, "{err}");
            let (_, err) = openssl_ok(&dec, if enc_redc { &none } else { &redc });
            assert_eq!(redc_did(&err, "decrypt"), !enc_redc, "{err}");
            assert_eq!(read(&pt), MSG, "{name} {label}");
        }
    }
    // A wrong OAEP label fails in redc as in OpenSSL.
    let ct = "enc-label.ct";
    openssl_ok(
        &[
            "pkeyutl",
            "-encrypt",
            "-pubin",
            "-inkey",
            &public,
            "-in",
            &msg,
            "-out",
            ct,
            "-pkeyopt",
            "rsa_padding_mode:oaep",
            "-pkeyopt",
            "rsa_oaep_label:01",
        ],
        &[],
    );
    let o = openssl(
        &[
            "pkeyutl",
            "-decrypt",
            "-inkey",
            &key,
            "-in",
            ct,
            "-pkeyopt",
            "rsa_padding_mode:oaep",
            "-pkeyopt",
            "rsa_oaep_label:02",
        ],
        &with_redc(dir),
    );
    assert!(
        !o.status.success() && o.stdout.is_empty(),
        "wrong label decrypted"
    );
}

#[test]
fn pkcs1_decryption_of_bad_padding_gives_the_implicit_rejection_message() {
    let dir = need_openssl!();
    let (key, public, _) = key(2048);
    // A "ciphertext" whose decryption is not PKCS#1 v1.5: raw-encrypt a
    // block that starts 00 02 but has no zero separator.
    let mut block = vec![0x5au8; 256];
    block[0] = 0;
    block[1] = 2;
    let block = write("ir.block", &block);
    let ct = "ir.ct";
    openssl_ok(
        &[
            "pkeyutl",
            "-encrypt",
            "-pubin",
            "-inkey",
            &public,
            "-in",
            &block,
            "-out",
            ct,
            "-pkeyopt",
            "rsa_padding_mode:none",
        ],
        &[],
    );
    // OpenSSL 3.0's default provider has no implicit rejection and fails...
    let version = openssl_ok(&["version"], &[]).0;
    let default = openssl(&["pkeyutl", "-decrypt", "-inkey", &key, "-in", ct], &[]);
    // ...redc returns the synthetic message, the same one each time.
    let (first, _) = (
        openssl_ok(
            &["pkeyutl", "-decrypt", "-inkey", &key, "-in", ct, "-out", "ir.1"],
            &with_redc(dir),
        ),
        (),
    );
    openssl_ok(
        &["pkeyutl", "-decrypt", "-inkey", &key, "-in", ct, "-out", "ir.2"],
        &with_redc(dir),
    );
    assert!(redc_did(&first.1, "decrypt Pkcs1"));
    assert_eq!(read("ir.1"), read("ir.2"));
    assert!(read("ir.1").len() <= 256 - 11);
    if version.starts_with("OpenSSL 3.0") || version.starts_with("OpenSSL 3.1") {
        assert!(
            !default.status.success(),
            "OpenSSL before 3.2 rejects bad padding explicitly"
        );
        eprintln!(
            "note: {} has no implicit rejection to compare the synthetic message with",
            version.trim()
        );
    } else {
        assert_eq!(
            default.stdout,
            read("ir.1"),
            "synthetic message differs from OpenSSL's"
        );
    }
}

#[test]
fn req_x509_and_csr_through_the_provider() {
    let dir = need_openssl!();
    let (key, _, _) = key(2048);
    // A CSR has no serial or time in it: PKCS#1 v1.5 makes it byte-identical.
    let base = [
        "req",
        "-new",
        "-key",
        &key,
        "-subj",
        "/CN=redc.example",
        "-outform",
        "DER",
    ];
    let mut ours = base.to_vec();
    ours.extend(["-out", "csr.redc"]);
    let (_, err) = openssl_ok(&ours, &with_redc(dir));
    assert!(redc_did(&err, "sign Pkcs1"), "{err}");
    let mut theirs = base.to_vec();
    theirs.extend(["-out", "csr.default"]);
    openssl_ok(&theirs, &[]);
    assert_eq!(read("csr.redc"), read("csr.default"));
    // Self-signed certificates, PKCS#1 v1.5 and PSS, checked by the default provider.
    for (name, opts) in [
        ("pkcs1", vec![]),
        (
            "pss",
            vec![
                "-sigopt",
                "rsa_padding_mode:pss",
                "-sigopt",
                "rsa_pss_saltlen:digest",
            ],
        ),
    ] {
        let cert = format!("x509-{name}.pem");
        let mut args = vec![
            "req",
            "-x509",
            "-new",
            "-key",
            &key,
            "-subj",
            "/CN=redc.example",
            "-days",
            "1",
            "-out",
            &cert,
        ];
        args.extend(&opts);
        let (_, err) = openssl_ok(&args, &with_redc(dir));
        assert!(redc_did(&err, "sign"), "{err}");
        let (out, _) = openssl_ok(&["verify", "-CAfile", &cert, &cert], &[]);
        assert!(out.contains(": OK"), "{name}: {out}");
        // The signature AlgorithmIdentifier redc gave OpenSSL is the one the
        // default provider writes (same DER, so the same decoded text).
        let theirs = format!("x509-{name}-default.pem");
        args[10] = &theirs;
        openssl_ok(&args, &[]);
        let alg = |cert: &str| {
            let text = openssl_ok(&["x509", "-in", cert, "-noout", "-text"], &[]).0;
            let start = text.find("Signature Algorithm").unwrap();
            text[start..text.find("Issuer:").unwrap()].to_string()
        };
        assert_eq!(alg(&cert), alg(&theirs), "{name}");
        assert_eq!(tbs_signature_alg(&cert), tbs_signature_alg(&theirs), "{name}");
    }
}

/// The DER bytes of a certificate's tbsCertificate signature field (the
/// third element at depth 2, after the version and the serial number),
/// read with `openssl asn1parse`.
fn tbs_signature_alg(cert_pem: &str) -> Vec<u8> {
    let der = format!("{cert_pem}.der");
    openssl_ok(&["x509", "-in", cert_pem, "-outform", "DER", "-out", &der], &[]);
    let text = openssl_ok(&["asn1parse", "-inform", "DER", "-in", &der], &[]).0;
    let line = text
        .lines()
        .filter(|l| l.contains(":d=2 "))
        .nth(2)
        .unwrap()
        .to_string();
    let num = |key: &str| -> usize {
        let rest = &line[line.find(key).unwrap() + key.len()..];
        rest.trim_start()
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let offset: usize = line.split(':').next().unwrap().trim().parse().unwrap();
    let (hl, l) = (num("hl="), num(" l="));
    read(&der)[offset..offset + hl + l].to_vec()
}

#[test]
fn genpkey_makes_keys_the_default_provider_uses() {
    let dir = need_openssl!();
    let (_, err) = openssl_ok(
        &[
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:1024",
            "-out",
            "gen.pem",
        ],
        &with_redc(dir),
    );
    assert!(redc_did(&err, "generate 1024 bits"), "{err}");
    let (out, _) = openssl_ok(&["pkey", "-in", "gen.pem", "-check", "-noout"], &[]);
    assert!(out.contains("Key is valid"), "{out}");
    let msg = write("gen.msg", MSG);
    openssl_ok(
        &["dgst", "-sha256", "-sign", "gen.pem", "-out", "gen.sig", &msg],
        &[],
    );
    openssl_ok(&["pkey", "-in", "gen.pem", "-pubout", "-out", "gen.pub"], &[]);
    let (out, _) = openssl_ok(
        &[
            "dgst",
            "-sha256",
            "-verify",
            "gen.pub",
            "-signature",
            "gen.sig",
            &msg,
        ],
        &[],
    );
    assert!(out.contains("Verified OK"));
}

#[test]
fn openssl_cnf_section_loads_the_provider() {
    let dir = need_openssl!();
    let (key, _, _) = key(2048);
    let cnf = write(
        "redc.cnf",
        format!(
            "openssl_conf = init\n[init]\nproviders = providers\nalg_section = algs\n\
             [providers]\ndefault = default_sect\nredc = redc_sect\n[default_sect]\nactivate = 1\n\
             [redc_sect]\nmodule = {}\nactivate = 1\n[algs]\ndefault_properties = ?provider=redc\n",
            dir.join("redc.so").display()
        )
        .as_bytes(),
    );
    let msg = write("cnf.msg", MSG);
    let o = std::process::Command::new("openssl")
        .args(["dgst", "-sha256", "-sign", &key, "-out", "cnf.sig", &msg])
        .current_dir(work_dir())
        .env("OPENSSL_CONF", work_dir().join(&cnf))
        .env("REDC_PROVIDER_TRACE", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && redc_did(&err, "sign Pkcs1"), "{err}");
    openssl_ok(
        &["dgst", "-sha256", "-sign", &key, "-out", "cnf.default", &msg],
        &[],
    );
    assert_eq!(read("cnf.sig"), read("cnf.default"));
}

/// A free loopback port.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn s_server_and_s_client_handshake_through_the_provider() {
    let dir = need_openssl!();
    let (key, _, cert) = key(2048);
    // TLS 1.3 and TLS 1.2 with ECDHE (the server signs with PSS), and
    // TLS 1.2 with RSA key exchange (the server decrypts the pre-master
    // secret with pad mode 7).
    // With -async (SSL_MODE_ASYNC) the server's signature (or its RSA
    // key-exchange decryption) runs inside an async job: queued, the job
    // paused and resumed, then run as a batch (of one here); the client's
    // verification (or the finished handshake) checks it.
    for (proto, cipher, server_op, client_op, server_extra) in [
        ("-tls1_3", None, "sign Pss", Some("verify Pss"), None),
        ("-tls1_3", None, "batch of 1", Some("verify Pss"), Some("-async")),
        ("-tls1_2", None, "sign Pss", Some("verify Pss"), None),
        ("-tls1_2", Some("AES128-GCM-SHA256"), "decrypt Tls", None, None),
        (
            "-tls1_2",
            Some("AES128-GCM-SHA256"),
            "batch of 1",
            None,
            Some("-async"),
        ),
    ] {
        let port = free_port().to_string();
        let addr = format!("127.0.0.1:{port}");
        let mut server = std::process::Command::new("openssl")
            .args([
                "s_server", "-accept", &port, "-naccept", "1", "-cert", &cert, "-key", &key, proto,
            ])
            .args(server_extra)
            .args(with_redc(dir))
            .current_dir(work_dir())
            .env("REDC_PROVIDER_TRACE", "1")
            // s_server quits when its stdin ends: keep it open.
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut client = None;
        for _ in 0..100 {
            let o = std::process::Command::new("openssl")
                .args([
                    "s_client",
                    "-connect",
                    &addr,
                    "-CAfile",
                    &cert,
                    "-verify_return_error",
                    "-brief",
                    proto,
                ])
                .args(cipher.map(|c| ["-cipher", c]).iter().flatten())
                .args(with_redc(dir))
                .current_dir(work_dir())
                .env("REDC_PROVIDER_TRACE", "1")
                .stdin(std::process::Stdio::null())
                .output()
                .unwrap();
            if String::from_utf8_lossy(&o.stderr).contains("CONNECTION ESTABLISHED") {
                client = Some(o);
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let _ = server.kill();
        let server = server.wait_with_output().unwrap();
        let client = client.expect("no handshake with s_server");
        let (c_err, s_err) = (
            String::from_utf8_lossy(&client.stderr),
            String::from_utf8_lossy(&server.stderr),
        );
        assert!(c_err.contains("Verification: OK"), "{c_err}");
        let want = if proto == "-tls1_3" {
            "Protocol version: TLSv1.3"
        } else {
            "Protocol version: TLSv1.2"
        };
        assert!(c_err.contains(want), "{c_err}");
        if let Some(c) = cipher {
            assert!(c_err.contains(&format!("Ciphersuite: {c}")), "{c_err}");
        }
        // The server signed (or decrypted) with redc; the client verified with redc.
        assert!(redc_did(&s_err, server_op), "server: {s_err}");
        if let Some(op) = client_op {
            assert!(redc_did(&c_err, op), "client: {c_err}");
        }
    }
}

/// Signatures inside OpenSSL's async jobs are queued and batched
/// (`queue.rs`): `openssl speed -async_jobs 8` starts eight jobs that each
/// queue a signature and pause, so the provider signs them eight at a time
/// (two eight-lane runs of four). Without jobs each signs alone. (The
/// batched signatures' correctness: the s_server `-async` handshake above
/// and the unit tests of `queue`.)
#[test]
fn async_jobs_sign_in_batches() {
    let dir = need_openssl!();
    let (_, err) = openssl_ok(
        &["speed", "-seconds", "1", "-async_jobs", "8", "rsa2048"],
        &with_redc(dir),
    );
    assert!(redc_did(&err, "batch of 8"), "{}", &err[..err.len().min(2000)]);
    let (_, err) = openssl_ok(&["speed", "-seconds", "1", "rsa2048"], &with_redc(dir));
    assert!(redc_did(&err, "sign Pkcs1"), "{}", &err[..err.len().min(2000)]);
    assert!(!redc_did(&err, "batch of"), "batched without async jobs");
}

/// PSS with MGF1 over another hash than the message's (`rsa_mgf1_md`):
/// signed by one provider, verified by the other, both ways.
#[test]
fn pss_with_another_mgf1_hash_across() {
    let dir = need_openssl!();
    let (key, public, _) = key(2048);
    let msg = write("mgf1.msg", MSG);
    let opts = [
        "-sigopt",
        "rsa_padding_mode:pss",
        "-sigopt",
        "rsa_mgf1_md:sha1",
        "-sigopt",
        "rsa_pss_saltlen:digest",
    ];
    let (redc, none) = (with_redc(dir), Vec::new());
    for (sign_redc, name) in [(true, "redc"), (false, "default")] {
        let sig = format!("mgf1-{name}.sig");
        let mut args = vec!["dgst", "-sha256", "-sign", &key, "-out", &sig];
        args.extend(opts);
        args.push(&msg);
        let (_, err) = openssl_ok(&args, if sign_redc { &redc } else { &none });
        assert_eq!(redc_did(&err, "sign"), sign_redc, "{err}");
        let mut verify = vec!["dgst", "-sha256", "-verify", &public, "-signature", &sig];
        verify.extend(opts);
        verify.push(&msg);
        let (out, err) = openssl_ok(&verify, if sign_redc { &none } else { &redc });
        assert!(out.contains("Verified OK"), "{name}: {out}");
        assert_eq!(redc_did(&err, "verify"), !sign_redc, "{err}");
        // The same signature under MGF1-SHA-256 does not verify.
        let mut wrong = vec!["dgst", "-sha256", "-verify", &public, "-signature", &sig];
        wrong.extend([
            "-sigopt",
            "rsa_padding_mode:pss",
            "-sigopt",
            "rsa_pss_saltlen:digest",
        ]);
        wrong.push(&msg);
        let o = std::process::Command::new("openssl")
            .args(&wrong)
            .args(&redc)
            .output()
            .unwrap();
        assert!(
            !String::from_utf8_lossy(&o.stdout).contains("Verified OK"),
            "{name}"
        );
    }
}

/// RSA-PSS keys (id-RSASSA-PSS): made by either provider and used by the
/// other, their restriction carried through export and import, and every
/// setting outside it refused by redc exactly where the default provider
/// (the oracle) refuses it.
#[test]
fn rsa_pss_keys_and_their_restrictions() {
    let dir = need_openssl!();
    let msg = write("rsapss.msg", MSG);
    let genpkey = |out: &str, opts: &[&str], extra: &[String]| -> String {
        let mut args = vec!["genpkey", "-algorithm", "RSA-PSS", "-out", out];
        for o in opts {
            args.extend(["-pkeyopt", o]);
        }
        openssl_ok(&args, extra).1
    };
    // Restricted, made by redc: SHA-256, MGF1 with SHA-256, salt >= 32.
    let err = genpkey(
        "pss-a.pem",
        &[
            "rsa_keygen_bits:2048",
            "rsa_pss_keygen_md:sha256",
            "rsa_pss_keygen_mgf1_md:sha256",
            "rsa_pss_keygen_saltlen:32",
        ],
        &with_redc(dir),
    );
    assert!(redc_did(&err, "generate 2048 bits"), "{err}");
    let (text, _) = openssl_ok(&["pkey", "-in", "pss-a.pem", "-noout", "-text"], &[]);
    for line in [
        "Hash Algorithm: SHA2-256",
        "Mask Algorithm: MGF1 with SHA2-256",
        "Minimum Salt Length: 32",
    ] {
        assert!(text.contains(line), "{line}: {text}");
    }
    // Restricted, made by the default provider: SHA-384, the MGF1 hash and
    // the salt at their defaults (SHA-1, 20); and an unrestricted key.
    genpkey(
        "pss-b.pem",
        &["rsa_keygen_bits:2048", "rsa_pss_keygen_md:sha384"],
        &[],
    );
    genpkey("pss-c.pem", &["rsa_keygen_bits:2048"], &[]);
    let (text, _) = openssl_ok(&["pkey", "-in", "pss-c.pem", "-noout", "-text"], &[]);
    assert!(text.contains("No PSS parameter restrictions"), "{text}");

    for (key, md) in [("pss-a", "-sha256"), ("pss-b", "-sha384"), ("pss-c", "-sha256")] {
        let (pem, public) = (format!("{key}.pem"), format!("{key}.pub"));
        openssl_ok(&["pkey", "-in", &pem, "-pubout", "-out", &public], &[]);
        // redc signs with the key's own settings; the default provider verifies.
        let (ours, theirs) = (format!("{key}.redc"), format!("{key}.default"));
        let (_, err) = openssl_ok(&["dgst", md, "-sign", &pem, "-out", &ours, &msg], &with_redc(dir));
        assert!(redc_did(&err, "sign Pss"), "{key}: {err}");
        let verify = |sig: &str, extra: &[String]| {
            openssl_ok(&["dgst", md, "-verify", &public, "-signature", sig, &msg], extra)
        };
        assert!(verify(&ours, &[]).0.contains("Verified OK"), "{key}");
        // The default provider signs; redc verifies.
        openssl_ok(&["dgst", md, "-sign", &pem, "-out", &theirs, &msg], &[]);
        let (out, err) = verify(&theirs, &with_redc(dir));
        assert!(
            out.contains("Verified OK") && redc_did(&err, "verify Pss"),
            "{key}: {out}{err}"
        );

        // Settings outside the key type or its restriction: refused by both.
        let mut refused: Vec<Vec<&str>> = vec![
            vec!["dgst", md, "-sign", &pem, "-sigopt", "rsa_padding_mode:pkcs1"],
            vec!["pkeyutl", "-encrypt", "-pubin", "-inkey", &public, "-in", &msg],
        ];
        if key != "pss-c" {
            refused.push(vec!["dgst", "-sha512", "-sign", &pem]);
            refused.push(vec!["dgst", md, "-sign", &pem, "-sigopt", "rsa_pss_saltlen:16"]);
            refused.push(vec!["dgst", md, "-sign", &pem, "-sigopt", "rsa_mgf1_md:sha512"]);
            refused.push(vec![
                "dgst",
                md,
                "-verify",
                &public,
                "-signature",
                &theirs,
                "-sigopt",
                "rsa_pss_saltlen:auto",
            ]);
        }
        for mut args in refused {
            // Options first: dgst takes everything after its first file as files.
            args.extend(["-out", "pss-refused.out"]);
            if args[0] == "dgst" {
                args.push(&msg);
            }
            let default = openssl(&args, &[]);
            let redc = openssl(&args, &with_redc(dir));
            let redc_err = String::from_utf8_lossy(&redc.stderr);
            assert!(
                !default.status.success() && !redc.status.success(),
                "{key} {args:?}: default {}, redc {}: {redc_err}",
                default.status,
                redc.status
            );
            // It was redc that refused: it holds the key, and nobody signed.
            assert!(
                redc_did(&redc_err, "import") && !redc_err.contains("redc-provider: sign"),
                "{key} {args:?}: {redc_err}"
            );
        }
    }

    // Self-signed certificates: the signature AlgorithmIdentifier (with the
    // restriction's hashes and salt) is the default provider's, byte for byte.
    for key in ["pss-a", "pss-b"] {
        let pem = format!("{key}.pem");
        let (ours, theirs) = (format!("{key}-cert.redc"), format!("{key}-cert.default"));
        for (out, extra) in [(&ours, with_redc(dir)), (&theirs, vec![])] {
            let (_, err) = openssl_ok(
                &[
                    "req", "-x509", "-new", "-key", &pem, "-subj", "/CN=pss", "-days", "1", "-out", out,
                ],
                &extra,
            );
            assert_eq!(redc_did(&err, "sign Pss"), !extra.is_empty(), "{key}: {err}");
        }
        let (out, _) = openssl_ok(&["verify", "-CAfile", &ours, &ours], &[]);
        assert!(out.contains(": OK"), "{key}: {out}");
        assert_eq!(tbs_signature_alg(&ours), tbs_signature_alg(&theirs), "{key}");
    }
}
