//! The fuzz targets' entry points (issue 14, item 2), one function per
//! target, shared by `fuzz_targets/*.rs` (libFuzzer through cargo-fuzz) and
//! by the regression replay `crates/redc-cli/tests/fuzz_regressions.rs`,
//! which includes this file by path so that a crash found here is replayed
//! through exactly the same code by a plain `cargo test`.
//!
//! Every entry point takes arbitrary bytes and must return normally: an
//! error from redc is a pass, a panic (or an abort, a hang, a sanitizer
//! report) is the bug. Where a result can be checked against an invariant
//! that does not come from the code under test (a decryption of what was
//! just encrypted, a verification of what was just signed), it is asserted.
//!
//! This file uses only redc's and redc-cli's public API.

use redc::hash::HashAlg;
use redc::keyfile::decode_public_key;
use redc::padding::{self, SaltLen};
use redc::rsa::{RsaPrivateKey, RsaPublicKey, os_rng};
use std::sync::OnceLock;

/// A fuzz target's entry point.
pub type Entry = fn(&[u8]);

/// Every target by name (the names of `fuzz_targets/*.rs` and of the
/// directories of `seeds/` and `regressions/`).
pub const TARGETS: [(&str, Entry); 5] = [
    ("private_key", private_key),
    ("public_key", public_key),
    ("verify", verify),
    ("decrypt", decrypt),
    ("cli_args", cli_args),
];

/// The fixed key of the signature and decryption targets: 1024 bits,
/// written by `openssl genrsa 1024` (PKCS#8 PEM). Small, so that a private
/// operation per input keeps the fuzzer fast.
pub const FIXED_KEY_PEM: &[u8] = include_bytes!("../keys/rsa1024.pem");

/// The fixed key, parsed once.
pub fn fixed_key() -> &'static RsaPrivateKey {
    static KEY: OnceLock<RsaPrivateKey> = OnceLock::new();
    KEY.get_or_init(|| RsaPrivateKey::from_key_file(FIXED_KEY_PEM).expect("the committed fixed key loads"))
}

const HASHES: [HashAlg; 4] = [HashAlg::Sha1, HashAlg::Sha256, HashAlg::Sha384, HashAlg::Sha512];

/// The hash picked by a selector byte.
fn hash_of(selector: u8) -> HashAlg {
    HASHES[usize::from(selector) % HASHES.len()]
}

/// Target `private_key`: any bytes as a private key file (PKCS#8 or PKCS#1,
/// PEM or DER, detected), then, if it loads, one private operation with it
/// checked by the public one, and its re-encoding read back.
pub fn private_key(data: &[u8]) {
    let _ = RsaPublicKey::from_key_file(data);
    let Ok(key) = RsaPrivateKey::from_key_file(data) else {
        return;
    };
    // A key that loads must work: x -> x^d -> x for a small x.
    let mut x = vec![0u8; key.size()];
    x[key.size() - 1] = 0x5a;
    let y = key
        .raw_private(&mut os_rng(), &x)
        .expect("private operation on a loaded key");
    assert_eq!(key.public_key().raw_public(&y).expect("public operation"), x);
    for format in [
        redc::keyfile::PrivateKeyFormat::Pkcs1,
        redc::keyfile::PrivateKeyFormat::Pkcs8,
    ] {
        for encoding in [redc::keyfile::Encoding::Pem, redc::keyfile::Encoding::Der] {
            let file = key.to_key_file(format, encoding).expect("encoding a loaded key");
            let back = RsaPrivateKey::from_key_file(&file).expect("a written key reads back");
            assert_eq!(back.public_key(), key.public_key());
        }
    }
}

/// Target `public_key`: any bytes as a public key file (SPKI or PKCS#1,
/// or the public half of a private key file, PEM or DER), then, if it
/// loads, one public operation and its re-encoding read back.
pub fn public_key(data: &[u8]) {
    let _ = decode_public_key(data);
    let Ok(key) = RsaPublicKey::from_key_file(data) else {
        return;
    };
    let mut x = vec![0u8; key.size()];
    x[key.size() - 1] = 2;
    let _ = key.raw_public(&x);
    for format in [
        redc::keyfile::PublicKeyFormat::Spki,
        redc::keyfile::PublicKeyFormat::Pkcs1,
    ] {
        for encoding in [redc::keyfile::Encoding::Pem, redc::keyfile::Encoding::Der] {
            let file = key.to_key_file(format, encoding).expect("encoding a loaded key");
            assert_eq!(
                RsaPublicKey::from_key_file(&file).expect("a written key reads back"),
                key
            );
        }
    }
}

/// Splits `data` as `[selector, payload...]`; empty input gives selector 0.
fn split(data: &[u8]) -> (u8, &[u8]) {
    match data.split_first() {
        Some((&s, rest)) => (s, rest),
        None => (0, &[]),
    }
}

/// Target `verify`: signature verification with the fixed key, PKCS#1 v1.5
/// and PSS with the salt length recovered (`SaltLen::Auto`).
///
/// Byte 0 picks the hash (bits 0-1) and whether the payload is the
/// signature itself (bit 2 clear) or the encoded message `EM`, which is
/// then raised to d with the fixed key so that the fuzzer controls the
/// padding that verification parses (bit 2 set). The padding decoders are
/// also run on the payload directly.
pub fn verify(data: &[u8]) {
    let (sel, payload) = split(data);
    let hash = hash_of(sel);
    let key = fixed_key();
    let public = key.public_key();
    let digest = hash.digest(b"redc fuzz");
    let em_bits = public.bits() - 1;
    // The padding checks on the raw bytes, at every length.
    let _ = padding::emsa_pkcs1v15_verify(hash, &digest, payload);
    let _ = padding::emsa_pss_verify(hash, &digest, payload, payload.len() * 8, SaltLen::Auto);
    let _ = padding::emsa_pss_verify(hash, &digest, payload, em_bits, SaltLen::Auto);
    let sig = if sel & 4 != 0 {
        match key.raw_private(&mut os_rng(), payload) {
            Ok(s) => s.to_vec(),
            Err(_) => payload.to_vec(),
        }
    } else {
        payload.to_vec()
    };
    let v15 = public.verify_pkcs1v15(hash, &digest, &sig);
    let pss = public.verify_pss(hash, &digest, &sig, SaltLen::Auto);
    // A PKCS#1 v1.5 EM ends in the digest, a PSS EM in 0xbc: one
    // signature can pass both only if the digest ends in 0xbc.
    if v15.is_ok() && pss.is_ok() {
        assert_eq!(
            digest.last(),
            Some(&0xbc),
            "one signature valid under both schemes"
        );
    }
}

/// Target `decrypt`: OAEP and PKCS#1 v1.5 (implicit rejection) decryption
/// with the fixed key.
///
/// Byte 0 picks the OAEP hash (bits 0-1), whether the payload is the
/// ciphertext itself (bit 2 clear) or the encoded message `EM`, encrypted
/// first with the raw public operation so that the fuzzer controls the
/// padding that decryption parses (bit 2 set), and whether the OAEP label
/// is empty (bit 3 clear) or "fuzz". The padding decoders are also run on
/// the payload directly.
pub fn decrypt(data: &[u8]) {
    let (sel, payload) = split(data);
    let hash = hash_of(sel);
    let label: &[u8] = if sel & 8 != 0 { b"fuzz" } else { b"" };
    let key = fixed_key();
    let k = key.size();
    let _ = padding::eme_oaep_decode(hash, label, payload, k);
    let _ = padding::eme_oaep_decode(hash, label, payload, payload.len());
    let _ = padding::eme_pkcs1v15_decode_strict(payload, k);
    let _ = padding::eme_pkcs1v15_decode_strict(payload, payload.len());
    let c = if sel & 4 != 0 {
        key.public_key()
            .raw_public(payload)
            .unwrap_or_else(|_| payload.to_vec())
    } else {
        payload.to_vec()
    };
    let oaep = key.decrypt_oaep_with_rng(&mut os_rng(), hash, label, &c);
    let v15 = key.decrypt_pkcs1v15_with_rng(&mut os_rng(), &c);
    if c.len() == k && c != payload && payload.len() == k {
        // c = EM^e with EM < n: PKCS#1 v1.5 always answers (a synthetic
        // message on bad padding), at most k - 11 bytes long.
        let m = v15.expect("PKCS#1 v1.5 decryption of a reduced ciphertext");
        assert!(m.len() <= k - 11);
        // A strict decode of EM that succeeds is what decryption must return.
        if let Ok(strict) = padding::eme_pkcs1v15_decode_strict(payload, k) {
            assert_eq!(*m, strict);
        }
        if let Ok(expected) = padding::eme_oaep_decode(hash, label, payload, k) {
            assert_eq!(oaep.expect("OAEP decryption of a valid EM"), expected);
        }
    }
}

/// Target `cli_args`: the command line's option parser. The payload is
/// split at NUL bytes into arguments (as Unix arguments are), after the
/// program name; `parse_args` must return, `Ok` or `Err`.
pub fn cli_args(data: &[u8]) {
    use std::ffi::OsString;
    use std::os::unix::ffi::OsStringExt;
    let mut args = vec![OsString::from("redc")];
    if !data.is_empty() {
        args.extend(data.split(|&b| b == 0).map(|a| OsString::from_vec(a.to_vec())));
    }
    if let Err(e) = redc_cli::parse_args(args) {
        // Rendering the error is part of what the binary does with it.
        let _ = e.render().to_string();
    }
}
