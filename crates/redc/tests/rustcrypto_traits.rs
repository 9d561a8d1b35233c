//! The RustCrypto traits on redc's keys: codec round trips, OpenSSL's keys
//! through `DecodePrivateKey`, and typed signers whose signatures OpenSSL
//! produces too, on the default dispatch's key and on every backend this
//! CPU has, forced one by one (`redc::exp::Backend`).

mod common;

use pkcs8::{DecodePrivateKey, EncodePrivateKey, LineEnding};
use redc::rsa::{RsaPrivateKey, RsaPublicKey, keygen, os_rng, pkcs1v15, pss};
use signature::{RandomizedSigner, SignatureEncoding, Signer, Verifier};
use spki::{DecodePublicKey, EncodePublicKey};
use std::process::Command;

#[test]
fn codecs_round_trip() {
    let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    let pem = key.to_pkcs8_pem(LineEnding::LF).unwrap();
    let back = RsaPrivateKey::from_pkcs8_pem(&pem).unwrap();
    assert_eq!(*back.d_bytes(), *key.d_bytes());
    let der = key.to_pkcs8_der().unwrap();
    assert_eq!(
        *RsaPrivateKey::from_pkcs8_der(der.as_bytes()).unwrap().p_bytes(),
        *key.p_bytes()
    );
    let pub_pem = key.public_key().to_public_key_pem(LineEnding::LF).unwrap();
    assert_eq!(
        RsaPublicKey::from_public_key_pem(&pub_pem).unwrap(),
        key.to_public_key()
    );
    assert!(RsaPrivateKey::from_pkcs8_der(b"\x30\x03\x02\x01\x00").is_err());
    assert!(RsaPublicKey::from_public_key_der(&der.as_bytes()[..40]).is_err());
}

#[test]
fn typed_signers_match_openssl() {
    let dir = std::env::temp_dir().join(format!("redc-traits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (key_path, msg_path, sig_path) = (dir.join("k.pem"), dir.join("m"), dir.join("s"));
    assert!(
        Command::new("openssl")
            .arg("genrsa")
            .arg("-out")
            .arg(&key_path)
            .arg("2048")
            .status()
            .unwrap()
            .success()
    );
    std::fs::write(&msg_path, b"typed").unwrap();
    assert!(
        Command::new("openssl")
            .args(["dgst", "-sha384", "-sign"])
            .arg(&key_path)
            .arg("-out")
            .arg(&sig_path)
            .arg(&msg_path)
            .status()
            .unwrap()
            .success()
    );
    let want = std::fs::read(&sig_path).unwrap();
    let default = RsaPrivateKey::read_pkcs8_pem_file(&key_path).unwrap();
    let mut keys = vec![("default".to_string(), default.clone())];
    for &b in common::backends() {
        let forced = default
            .with_backend(b)
            .unwrap_or_else(|| panic!("backend {} is available but refused", b.name()));
        keys.push((b.name().to_string(), forced));
    }
    for (name, key) in keys {
        let signer = pkcs1v15::SigningKey::<sha2::Sha384>::new(key.clone());
        let sig = signer.sign(b"typed");
        assert_eq!(sig.to_bytes().as_ref(), want.as_slice(), "{name}");
        let sig2 = signer.sign_with_rng(&mut os_rng(), b"typed");
        assert_eq!(sig, sig2, "{name}");
        let verifier = signer.verifying_key();
        assert!(verifier.verify(b"typed", &sig).is_ok(), "{name}");
        assert!(verifier.verify(b"other", &sig).is_err(), "{name}");
        let pss_signer = pss::SigningKey::<sha2::Sha256>::new(key);
        let ps = pss_signer.sign(b"typed");
        assert!(pss_signer.verifying_key().verify(b"typed", &ps).is_ok(), "{name}");
        assert!(
            pss::VerifyingKey::<sha2::Sha512>::new(signer.key().to_public_key())
                .verify(b"typed", &ps)
                .is_err(),
            "{name}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
