//! Encrypted and RSA-PSS key files of the library against the `openssl`
//! binary: every KDF and cipher redc writes (PBKDF2-HMAC-SHA-256 and scrypt
//! with AES-128/192/256-CBC in PKCS#8, PEM and DER; the legacy PEM) is read
//! by OpenSSL to the same numbers, and RSA-PSS parameters round-trip
//! through OpenSSL. OpenSSL is the oracle: `openssl pkey -traditional`
//! of the decrypted key must equal our plain PKCS#1 encoding byte for byte.

mod common;
use common::openssl_in;

/// `openssl ARGS` in the current directory.
fn openssl(args: &[&str]) -> Vec<u8> {
    openssl_in(std::path::Path::new("."), args)
}

use std::path::PathBuf;

use redc::hash::HashAlg;
use redc::keyfile::*;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("redc-enc-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// An OpenSSL-made 1024-bit key's components.
fn key(d: &std::path::Path) -> RsaPrivateComponents {
    let path = d.join("k.pem");
    let path = path.to_str().unwrap();
    openssl(&[
        "genpkey",
        "-algorithm",
        "RSA",
        "-pkeyopt",
        "rsa_keygen_bits:1024",
        "-out",
        path,
    ]);
    decode_private_key(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn every_kdf_and_cipher_redc_writes_is_read_by_openssl() {
    let d = dir("write");
    let k = key(&d);
    let plain_pkcs1 = encode_private_key(&k, PrivateKeyFormat::Pkcs1, Encoding::Pem).unwrap();
    let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
    let pass = b"p\xc3\xa4ss phrase";
    let pass_arg = format!("pass:{}", std::str::from_utf8(pass).unwrap());
    let kdfs = [
        KeyKdf::Pbkdf2Sha256 { iterations: 1000 },
        // Small scrypt cost: the point is the format, not the work factor.
        KeyKdf::Scrypt {
            log_n: 10,
            r: 8,
            p: 1,
        },
    ];
    for kdf in kdfs {
        for cipher in [KeyCipher::Aes128Cbc, KeyCipher::Aes192Cbc, KeyCipher::Aes256Cbc] {
            for (format, encoding) in [
                (PrivateKeyFormat::Pkcs8, Encoding::Pem),
                (PrivateKeyFormat::Pkcs8, Encoding::Der),
                (PrivateKeyFormat::Pkcs1, Encoding::Pem),
            ] {
                if format == PrivateKeyFormat::Pkcs1 && kdf != KeyKdf::default() {
                    continue; // the legacy PEM has its own KDF
                }
                let what = format!("{kdf:?} {cipher:?} {format:?} {encoding:?}");
                let file =
                    encode_private_key_encrypted(&k, format, encoding, pass, cipher, kdf, &mut rng).unwrap();
                let path = d.join("enc");
                std::fs::write(&path, &file).unwrap();
                let inform = if encoding == Encoding::Der { "DER" } else { "PEM" };
                let theirs = openssl(&[
                    "rsa",
                    "-inform",
                    inform,
                    "-in",
                    path.to_str().unwrap(),
                    "-passin",
                    &pass_arg,
                    "-traditional",
                ]);
                assert_eq!(theirs, *plain_pkcs1, "{what}");
                // And we read it back; a wrong passphrase is refused.
                let back = decode_private_key_with_passphrase(&file, Some(pass)).unwrap();
                assert_eq!(*back.d, *k.d, "{what}");
                assert_eq!(
                    decode_private_key_with_passphrase(&file, Some(b"wrong")).unwrap_err(),
                    KeyFileError::BadPassphrase,
                    "{what}"
                );
                assert_eq!(
                    decode_private_key(&file).unwrap_err(),
                    KeyFileError::Encrypted,
                    "{what}"
                );
            }
        }
    }
    assert!(matches!(
        encode_private_key_encrypted(
            &k,
            PrivateKeyFormat::Pkcs1,
            Encoding::Der,
            pass,
            KeyCipher::Aes128Cbc,
            KeyKdf::default(),
            &mut rng
        ),
        Err(KeyFileError::Encode(_))
    ));
}

#[test]
fn rsa_pss_parameters_round_trip_through_openssl() {
    let d = dir("pss");
    let k = key(&d);
    for params in [
        None,
        Some(PssParams {
            hash: HashAlg::Sha256,
            mgf1_hash: HashAlg::Sha256,
            salt_len: 32,
        }),
        Some(PssParams {
            hash: HashAlg::Sha512,
            mgf1_hash: HashAlg::Sha1,
            salt_len: 0,
        }),
        Some(PssParams {
            hash: HashAlg::Sha224,
            mgf1_hash: HashAlg::Sha384,
            salt_len: 100,
        }),
        Some(PssParams::default()),
    ] {
        let alg = KeyAlgorithm::RsaPss(params);
        let ours = encode_private_key_info(&k, alg, PrivateKeyFormat::Pkcs8, Encoding::Pem).unwrap();
        let path = d.join("pss.pem");
        std::fs::write(&path, &ours).unwrap();
        let p = path.to_str().unwrap();
        // OpenSSL re-encodes it identically (same identifier, same parameters)...
        let theirs = openssl(&["pkey", "-in", p]);
        assert_eq!(
            String::from_utf8_lossy(&theirs),
            String::from_utf8_lossy(&ours),
            "{params:?}"
        );
        // ...and so for the public key.
        let spki = openssl(&["pkey", "-in", p, "-pubout"]);
        let (public, got) = decode_public_key_info(&spki, None).unwrap();
        assert_eq!(got, alg);
        assert_eq!(
            encode_public_key_info(&public, alg, PublicKeyFormat::Spki, Encoding::Pem).unwrap(),
            spki
        );
        let (_, back) = decode_private_key_info(&ours, None).unwrap();
        assert_eq!(back, alg);
    }
}

/// About one wrong passphrase in 256 decrypts to garbage that ends in valid
/// CBC padding; that garbage must still be reported as a wrong passphrase,
/// not as a malformed file. 4000 tries exercise that case about 16 times
/// per format (the chance of missing it entirely is below 1e-6).
#[test]
fn wrong_passphrases_that_unpad_by_chance_are_still_wrong_passphrases() {
    let d = dir("unpad");
    let k = key(&d);
    let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
    let cheap = KeyKdf::Pbkdf2Sha256 { iterations: 1 };
    let files = [
        (PrivateKeyFormat::Pkcs8, Encoding::Der, cheap),
        (PrivateKeyFormat::Pkcs1, Encoding::Pem, KeyKdf::default()),
    ];
    for (format, encoding, kdf) in files {
        let file = encode_private_key_encrypted(
            &k,
            format,
            encoding,
            b"right",
            KeyCipher::Aes128Cbc,
            kdf,
            &mut rng,
        )
        .unwrap();
        for i in 0..4000 {
            let wrong = format!("wrong {i}");
            assert_eq!(
                decode_private_key_with_passphrase(&file, Some(wrong.as_bytes())).unwrap_err(),
                KeyFileError::BadPassphrase,
                "{format:?} {encoding:?} passphrase {wrong:?}"
            );
        }
    }
}
