//! The `rsa` crate's API where its users reach for it (issue 42, item 4):
//! each item a program written against `rsa` found missing, checked
//! against the `openssl` binary where a value is asserted. Needs `openssl`
//! on PATH (CI installs it).

mod common;

use redc::hash::HashAlg;
use redc::pkcs1::{DecodeRsaPrivateKey, DecodeRsaPublicKey, EncodeRsaPrivateKey, EncodeRsaPublicKey};
use redc::pkcs8::{DecodePrivateKey, LineEnding};
use redc::rsa::{BigUint, PublicKeyParts, RsaPrivateKey, RsaPublicKey, os_rng, pkcs1v15, pss};
use redc::sha2::{Digest, Sha256};
use redc::signature::hazmat::{PrehashSigner, PrehashVerifier, RandomizedPrehashSigner};
use redc::signature::{Keypair, SignatureEncoding, Signer, Verifier};
use redc::spki::EncodePublicKey;
use std::path::PathBuf;
use std::sync::OnceLock;

/// A scratch directory for one test, removed when dropped.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("redc-parity-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }
    fn path(&self, f: &str) -> PathBuf {
        self.0.join(f)
    }
    fn read(&self, f: &str) -> Vec<u8> {
        std::fs::read(self.path(f)).unwrap()
    }
    fn write(&self, f: &str, data: &[u8]) {
        std::fs::write(self.path(f), data).unwrap()
    }
    /// Run openssl in this directory; its stdout, or a panic with its stderr.
    fn openssl(&self, args: &[&str]) -> Vec<u8> {
        common::openssl_in(&self.0, args)
    }
    /// `openssl dgst -sha256` with PSS padding and a 32-byte salt, then `rest`.
    fn pss_dgst(&self, rest: &[&str]) -> Vec<u8> {
        let pss = [
            "dgst",
            "-sha256",
            "-sigopt",
            "rsa_padding_mode:pss",
            "-sigopt",
            "rsa_pss_saltlen:32",
        ];
        self.openssl(&[&pss[..], rest].concat())
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One 2048-bit key made by `openssl genrsa` (PKCS#8 PEM), shared by the tests.
fn openssl_key_pem() -> &'static str {
    static PEM: OnceLock<String> = OnceLock::new();
    PEM.get_or_init(|| {
        let d = Dir::new("genrsa");
        d.openssl(&["genrsa", "-out", "k.pem", "2048"]);
        String::from_utf8(d.read("k.pem")).unwrap()
    })
}

/// The shared key in a directory, as `k.pem`, and loaded.
fn key_in(d: &Dir) -> RsaPrivateKey {
    d.write("k.pem", openssl_key_pem().as_bytes());
    RsaPrivateKey::from_pkcs8_pem(openssl_key_pem()).unwrap()
}

#[test]
fn pkcs1_traits_match_openssl() {
    let d = Dir::new("pkcs1");
    let key = key_in(&d);
    d.openssl(&["rsa", "-in", "k.pem", "-traditional", "-out", "p1.pem"]);
    d.openssl(&[
        "rsa",
        "-in",
        "k.pem",
        "-traditional",
        "-outform",
        "DER",
        "-out",
        "p1.der",
    ]);
    d.openssl(&["rsa", "-in", "k.pem", "-RSAPublicKey_out", "-out", "rsapub.pem"]);
    d.openssl(&[
        "rsa",
        "-in",
        "k.pem",
        "-RSAPublicKey_out",
        "-outform",
        "DER",
        "-out",
        "rsapub.der",
    ]);
    let p1_pem = String::from_utf8(d.read("p1.pem")).unwrap();
    let rsapub_pem = String::from_utf8(d.read("rsapub.pem")).unwrap();

    // Decode OpenSSL's PKCS#1 files.
    let from_pem = RsaPrivateKey::from_pkcs1_pem(&p1_pem).unwrap();
    assert_eq!(*from_pem.d_bytes(), *key.d_bytes());
    let from_der = RsaPrivateKey::from_pkcs1_der(&d.read("p1.der")).unwrap();
    assert_eq!(*from_der.qinv_bytes(), *key.qinv_bytes());
    assert_eq!(
        RsaPublicKey::from_pkcs1_pem(&rsapub_pem).unwrap(),
        key.to_public_key()
    );
    assert_eq!(
        RsaPublicKey::from_pkcs1_der(&d.read("rsapub.der")).unwrap(),
        key.to_public_key()
    );
    RsaPrivateKey::read_pkcs1_pem_file(d.path("p1.pem")).unwrap();

    // Encode byte for byte as OpenSSL does.
    assert_eq!(key.to_pkcs1_pem(LineEnding::LF).unwrap().as_str(), p1_pem);
    assert_eq!(key.to_pkcs1_der().unwrap().as_bytes(), d.read("p1.der"));
    assert_eq!(key.public_key().to_pkcs1_pem(LineEnding::LF).unwrap(), rsapub_pem);
    assert_eq!(
        key.public_key().to_pkcs1_der().unwrap().as_bytes(),
        d.read("rsapub.der")
    );

    // PKCS#1 only: PKCS#8 and SPKI are other traits' business.
    assert!(RsaPrivateKey::from_pkcs1_pem(openssl_key_pem()).is_err());
    let p8_der = redc::pkcs8::EncodePrivateKey::to_pkcs8_der(&key).unwrap();
    assert!(RsaPrivateKey::from_pkcs1_der(p8_der.as_bytes()).is_err());
    let spki_der = key.public_key().to_public_key_der().unwrap();
    assert!(RsaPublicKey::from_pkcs1_der(spki_der.as_bytes()).is_err());
    // Well-formed DER whose numbers are no key: the pkcs1 crate's Crypto error.
    let mut bad = d.read("rsapub.der");
    let last = bad.len() - 1;
    bad[last] ^= 1; // e = 65536: even
    assert!(matches!(
        RsaPublicKey::from_pkcs1_der(&bad),
        Err(redc::pkcs1::Error::Crypto)
    ));
}

#[test]
fn public_key_parts_match_openssl() {
    let d = Dir::new("parts");
    let key = key_in(&d);
    let modulus = String::from_utf8(d.openssl(&["rsa", "-in", "k.pem", "-modulus", "-noout"])).unwrap();
    let n_hex = modulus.trim().strip_prefix("Modulus=").unwrap();
    let n = BigUint::parse_bytes(n_hex.as_bytes(), 16).unwrap();
    let text = String::from_utf8(d.openssl(&["rsa", "-in", "k.pem", "-text", "-noout"])).unwrap();
    assert!(text.contains("publicExponent: 65537 (0x10001)"), "{text}");

    let public = RsaPublicKey::from(&key);
    for (n_got, e_got, size) in [
        (public.n(), public.e(), PublicKeyParts::size(&public)),
        (key.n(), key.e(), PublicKeyParts::size(&key)),
    ] {
        assert_eq!(*n_got, n);
        assert_eq!(*e_got, BigUint::from(65537u32));
        assert_eq!(size, 256);
    }
    assert_eq!(key.n().to_bytes_be(), key.public_key().n_bytes());
}

#[test]
fn public_key_from_private_key() {
    let d = Dir::new("from");
    let key = key_in(&d);
    d.openssl(&[
        "pkey", "-in", "k.pem", "-pubout", "-outform", "DER", "-out", "spki.der",
    ]);
    let by_ref = RsaPublicKey::from(&key);
    assert_eq!(by_ref.to_public_key_der().unwrap().as_bytes(), d.read("spki.der"));
    let by_value: RsaPublicKey = key.clone().into();
    assert_eq!(by_value, by_ref);
}

#[test]
fn validate_accepts_valid_keys() {
    let d = Dir::new("validate");
    let checked: Result<(), redc::rsa::Error> = key_in(&d).validate();
    checked.unwrap();
    RsaPrivateKey::new(&mut os_rng(), 1024)
        .unwrap()
        .validate()
        .unwrap();
    // OpenSSL agrees the key is valid.
    let ok = d.openssl(&["rsa", "-in", "k.pem", "-check", "-noout"]);
    assert!(String::from_utf8_lossy(&ok).contains("RSA key ok"));
}

/// The verifying key through `signature::Keypair` only, as generic code sees it.
fn keypair_verifier<K: Keypair>(k: &K) -> K::VerifyingKey {
    k.verifying_key()
}

#[test]
fn random_clone_keypair_and_spki_of_verifying_key_against_openssl() {
    let d = Dir::new("random");
    let signer = pkcs1v15::SigningKey::<Sha256>::random(&mut os_rng(), 2048).unwrap();
    let copy = signer.clone();
    let sig = signer.sign(b"random key");
    assert_eq!(copy.sign(b"random key"), sig); // deterministic scheme, same key
    let verifier = keypair_verifier(&copy);
    verifier.verify(b"random key", &sig).unwrap();
    let verifier2 = verifier.clone();
    assert_eq!(verifier2, verifier);

    // OpenSSL verifies with the SPKI the verifying key encodes.
    d.write(
        "pub.pem",
        verifier.to_public_key_pem(LineEnding::LF).unwrap().as_bytes(),
    );
    d.write("m", b"random key");
    d.write("s", &sig.to_bytes());
    d.openssl(&["dgst", "-sha256", "-verify", "pub.pem", "-signature", "s", "m"]);

    let pss_signer = pss::SigningKey::<Sha256>::random(&mut os_rng(), 2048).unwrap();
    let pss_copy = pss_signer.clone();
    let ps = pss_copy.sign(b"random key");
    let pss_verifier = keypair_verifier(&pss_signer);
    pss_verifier.verify(b"random key", &ps).unwrap();
    d.write(
        "pss_pub.pem",
        pss_verifier.to_public_key_pem(LineEnding::LF).unwrap().as_bytes(),
    );
    d.write("ps", &ps.to_bytes());
    d.pss_dgst(&["-verify", "pss_pub.pem", "-signature", "ps", "m"]);
    // Debug shows the size and the hash, never the private numbers.
    assert_eq!(
        format!("{signer:?}"),
        "SigningKey { bits: 2048, hash: Sha256, .. }"
    );
}

#[test]
fn prehash_sign_and_verify_against_openssl() {
    let d = Dir::new("prehash");
    let key = key_in(&d);
    d.write("m", b"prehashed message");
    d.openssl(&["dgst", "-sha256", "-sign", "k.pem", "-out", "s", "m"]);
    d.pss_dgst(&["-sign", "k.pem", "-out", "ps", "m"]);
    let digest = Sha256::digest(b"prehashed message");

    let signer = pkcs1v15::SigningKey::<Sha256>::new(key.clone());
    let sig = signer.sign_prehash(&digest).unwrap();
    assert_eq!(&sig.to_bytes()[..], d.read("s")); // byte for byte
    let sig2 = signer.sign_prehash_with_rng(&mut os_rng(), &digest).unwrap();
    assert_eq!(sig2, sig);
    let openssl_sig = redc::rsa::Signature::try_from(&d.read("s")[..]).unwrap();
    signer
        .verifying_key()
        .verify_prehash(&digest, &openssl_sig)
        .unwrap();
    assert!(signer.sign_prehash(&digest[..31]).is_err());
    assert!(
        signer
            .verifying_key()
            .verify_prehash(&Sha256::digest(b"other"), &openssl_sig)
            .is_err()
    );

    let pss_signer = pss::SigningKey::<Sha256>::new(key);
    let openssl_pss = redc::rsa::Signature::try_from(&d.read("ps")[..]).unwrap();
    pss_signer
        .verifying_key()
        .verify_prehash(&digest, &openssl_pss)
        .unwrap();
    let ours = pss_signer.sign_prehash(&digest).unwrap();
    d.write("ours", &ours.to_bytes());
    d.openssl(&["pkey", "-in", "k.pem", "-pubout", "-out", "pub.pem"]);
    d.pss_dgst(&["-verify", "pub.pem", "-signature", "ours", "m"]);
}

/// `?` on every error the RSA API returns, by value, into the boxed error
/// `main` functions return; `Send + Sync` so that it crosses threads.
fn every_error_with_question_mark() -> Result<(), Box<dyn std::error::Error + Send + Sync + 'static>> {
    let key = RsaPrivateKey::new(&mut os_rng(), 1024)?; // redc::rsa::Error
    let pem = key.to_pkcs1_pem(LineEnding::LF)?; // pkcs1::Error
    let key = RsaPrivateKey::from_pkcs1_pem(&pem)?;
    let _ = RsaPrivateKey::from_key_file(pem.as_bytes())?; // KeyLoadError
    let _ = redc::mont::MontContext::from_hex("f1")?; // redc::Error
    let signer = pkcs1v15::SigningKey::<Sha256>::new(key);
    let msgs: [&[u8]; 2] = [b"a", b"b"];
    let sigs = signer.try_sign_batch(&msgs)?; // signature::Error, no `&Error`
    signer.verifying_key().verify(b"b", &sigs[1])?;
    for sig in signer.sign_batch(&msgs) {
        sig?; // by value from the per-message form too
    }
    Ok(())
}

#[test]
fn errors_convert_with_question_mark() {
    fn send_sync_static<E: std::error::Error + Send + Sync + 'static>() {}
    send_sync_static::<redc::rsa::Error>();
    send_sync_static::<redc::rsa::KeyLoadError>();
    send_sync_static::<redc::Error>();
    send_sync_static::<redc::signature::Error>();
    send_sync_static::<redc::pkcs1::Error>();
    every_error_with_question_mark().unwrap();
    std::thread::spawn(every_error_with_question_mark)
        .join()
        .unwrap()
        .unwrap();
}

#[test]
fn decrypt_without_rng_reads_openssl_ciphertexts() {
    let d = Dir::new("decrypt");
    let key = key_in(&d);
    d.write("m", b"secret for redc");
    d.openssl(&[
        "pkeyutl",
        "-encrypt",
        "-inkey",
        "k.pem",
        "-pkeyopt",
        "rsa_padding_mode:oaep",
        "-pkeyopt",
        "rsa_oaep_md:sha256",
        "-pkeyopt",
        "rsa_mgf1_md:sha256",
        "-in",
        "m",
        "-out",
        "oaep",
    ]);
    d.openssl(&[
        "pkeyutl", "-encrypt", "-inkey", "k.pem", "-in", "m", "-out", "v15",
    ]);
    let pt = key.decrypt_oaep(HashAlg::Sha256, b"", &d.read("oaep")).unwrap();
    assert_eq!(pt.as_slice(), b"secret for redc");
    let pt = key.decrypt_pkcs1v15(&d.read("v15")).unwrap();
    assert_eq!(pt.as_slice(), b"secret for redc");
    assert_eq!(
        key.decrypt_oaep(HashAlg::Sha1, b"", &d.read("oaep")),
        Err(redc::rsa::Error::Decryption)
    );
}

#[test]
fn typed_batch_signs_messages_as_openssl() {
    let d = Dir::new("batch");
    let key = key_in(&d);
    let msgs: Vec<Vec<u8>> = (0..5u8)
        .map(|i| format!("batch message {i}").into_bytes())
        .collect();
    let refs: Vec<&[u8]> = msgs.iter().map(|m| &m[..]).collect();
    let signer = pkcs1v15::SigningKey::<Sha256>::new(key);
    let sigs = signer.try_sign_batch(&refs).unwrap();
    assert_eq!(sigs.len(), msgs.len());
    for (i, (m, sig)) in msgs.iter().zip(&sigs).enumerate() {
        let (mf, sf) = (format!("m{i}"), format!("s{i}"));
        d.write(&mf, m);
        d.openssl(&["dgst", "-sha256", "-sign", "k.pem", "-out", &sf, &mf]);
        assert_eq!(&sig.to_bytes()[..], d.read(&sf), "message {i}");
    }
    assert!(signer.try_sign_batch(&[]).unwrap().is_empty());
}

#[test]
fn hash_types_name_every_hash_alg() {
    assert_eq!(HashAlg::of::<Sha256>(), HashAlg::Sha256);
    assert_eq!(HashAlg::of::<redc::sha1::Sha1>(), HashAlg::Sha1);
    assert_eq!(HashAlg::of::<redc::sha2::Sha512_256>(), HashAlg::Sha512_256);
    assert_eq!(HashAlg::of::<redc::sha3::Sha3_256>(), HashAlg::Sha3_256);
    // A typed key over SHA3-256 signs as OpenSSL does.
    let d = Dir::new("sha3");
    let key = key_in(&d);
    d.write("m", b"sha3");
    d.openssl(&["dgst", "-sha3-256", "-sign", "k.pem", "-out", "s", "m"]);
    let sig = pkcs1v15::SigningKey::<redc::sha3::Sha3_256>::new(key.clone()).sign(b"sha3");
    assert_eq!(&sig.to_bytes()[..], d.read("s"));
    // The byte-level method with the same hash, named from the type.
    let digest = HashAlg::of::<redc::sha3::Sha3_256>().digest(b"sha3");
    key.public_key()
        .verify_pkcs1v15(HashAlg::of::<redc::sha3::Sha3_256>(), &digest, &d.read("s"))
        .unwrap();
}

/// A program written against `rsa` 0.9 (its README's and docs' calls),
/// where only the `use` lines changed: the `rsa` 0.9 line is in the comment
/// above each. Encryption is left out: `rsa`'s padding objects
/// (`Oaep::new::<Sha256>()`) have no counterpart; see `redc::migration`.
mod written_for_rsa_0_9 {
    // use rsa::{RsaPrivateKey, RsaPublicKey, BigUint};
    use redc::rsa::{BigUint, RsaPrivateKey, RsaPublicKey};
    // use rsa::traits::PublicKeyParts;
    use redc::rsa::PublicKeyParts;
    // use rsa::pkcs1v15::{SigningKey, VerifyingKey};
    use redc::rsa::pkcs1v15::{SigningKey, VerifyingKey};
    // use rsa::pkcs1::{DecodeRsaPrivateKey, DecodeRsaPublicKey, EncodeRsaPrivateKey, EncodeRsaPublicKey, LineEnding};
    use redc::pkcs1::{
        DecodeRsaPrivateKey, DecodeRsaPublicKey, EncodeRsaPrivateKey, EncodeRsaPublicKey, LineEnding,
    };
    // use rsa::pkcs8::{DecodePublicKey, EncodePublicKey};
    use redc::pkcs8::{DecodePublicKey, EncodePublicKey};
    // use rsa::signature::{Keypair, RandomizedSigner, SignatureEncoding, Verifier};
    use redc::signature::{Keypair, RandomizedSigner, SignatureEncoding, Verifier};
    // use rsa::signature::hazmat::{PrehashSigner, PrehashVerifier};
    use redc::signature::hazmat::{PrehashSigner, PrehashVerifier};
    // use rsa::sha2::{Digest, Sha256};
    use redc::sha2::{Digest, Sha256};
    // use rand::thread_rng;
    use redc::rsa::os_rng as thread_rng;

    pub fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let mut rng = thread_rng();
        let bits = 2048;
        let private_key = RsaPrivateKey::new(&mut rng, bits)?;
        private_key.validate()?;
        let public_key = RsaPublicKey::from(&private_key);
        assert_eq!(public_key.n().bits(), bits as u64);
        assert_eq!(public_key.e(), &BigUint::from(65537u32));
        assert_eq!(public_key.size(), 256);

        let pem = private_key.to_pkcs1_pem(LineEnding::LF)?;
        let private_key = RsaPrivateKey::from_pkcs1_pem(&pem)?;
        let der = public_key.to_pkcs1_der()?;
        assert_eq!(RsaPublicKey::from_pkcs1_der(der.as_bytes())?, public_key);

        let signing_key = SigningKey::<Sha256>::new(private_key);
        let verifying_key: VerifyingKey<Sha256> =
            <SigningKey<Sha256> as Keypair>::verifying_key(&signing_key);
        let data = b"hello world";
        let signature = signing_key.sign_with_rng(&mut rng, data);
        assert_ne!(signature.to_bytes().as_ref(), data);
        verifying_key.verify(data, &signature)?;

        let spki = verifying_key.to_public_key_pem(LineEnding::LF)?;
        let again = VerifyingKey::<Sha256>::from_public_key_pem(&spki)?;
        again.verify(data, &signature)?;

        let digest = Sha256::digest(data);
        let prehashed = signing_key.clone().sign_prehash(&digest)?;
        verifying_key.verify_prehash(&digest, &prehashed)?;

        let other = SigningKey::<Sha256>::random(&mut rng, bits)?;
        assert!(other.verifying_key().verify(data, &signature).is_err());
        Ok(())
    }
}

#[test]
fn a_program_for_rsa_0_9_with_only_its_use_lines_changed() {
    written_for_rsa_0_9::main().unwrap();
}

#[test]
fn openssl_reads_what_the_pkcs1_encoders_write() {
    let d = Dir::new("openssl-reads");
    let key = RsaPrivateKey::new(&mut os_rng(), 2048).unwrap();
    key.write_pkcs1_pem_file(d.path("ours.pem"), LineEnding::LF)
        .unwrap();
    let ok = d.openssl(&["rsa", "-in", "ours.pem", "-check", "-noout"]);
    assert!(String::from_utf8_lossy(&ok).contains("RSA key ok"));
    key.public_key()
        .write_pkcs1_der_file(d.path("ours_pub.der"))
        .unwrap();
    let modulus = d.openssl(&[
        "rsa",
        "-RSAPublicKey_in",
        "-inform",
        "DER",
        "-in",
        "ours_pub.der",
        "-modulus",
        "-noout",
    ]);
    let hex = String::from_utf8(modulus).unwrap();
    assert_eq!(
        hex.trim().strip_prefix("Modulus=").unwrap(),
        key.n().to_str_radix(16).to_uppercase()
    );
}
