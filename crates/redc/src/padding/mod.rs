//! Byte-level encodings of PKCS#1 (RFC 8017): what goes into, and comes out
//! of, the RSA primitive. No modular arithmetic lives here.
//!
//! | scheme | encode | decode / verify | file |
//! | --- | --- | --- | --- |
//! | EMSA-PKCS1-v1_5 (signatures, §9.2) | [`emsa_pkcs1v15_encode`] | [`emsa_pkcs1v15_verify`] | `pkcs1v15.rs` |
//! | the same without DigestInfo (raw data, MD5-SHA1) | [`emsa_pkcs1v15_encode_raw`] | [`emsa_pkcs1v15_decode_raw`] | `pkcs1v15.rs` |
//! | EMSA-PSS (signatures, §9.1) | [`emsa_pss_encode`] | [`emsa_pss_verify`] | `pss.rs` |
//! | EME-OAEP (encryption, §7.1) | [`eme_oaep_encode`] | [`eme_oaep_decode`] | `oaep.rs` |
//! | EME-PKCS1-v1_5 (encryption, §7.2) | [`eme_pkcs1v15_encode`] | [`eme_pkcs1v15_decode_strict`], [`eme_pkcs1v15_decode_implicit`] | `pkcs1v15.rs`, `implicit.rs` |
//! | MGF1 (§B.2.1) | [`mgf1`], [`mgf1_xor`] | | `mgf1.rs` |
//!
//! # Lengths
//! `k` is the modulus length in bytes, `ceil(modBits / 8)`. Encryption
//! encodings and EMSA-PKCS1-v1_5 are exactly `k` bytes. EMSA-PSS works on
//! `emBits = modBits - 1` bits, so its encoding is `emLen = ceil(emBits / 8)`
//! bytes: one byte shorter than `k` when `modBits - 1` is a multiple of 8.
//! [`emsa_pss_encode`] returns `emLen` bytes (any big-endian integer
//! conversion, or a left zero pad to `k`, feeds it to RSASP1), and
//! [`emsa_pss_verify`] takes either `emLen` bytes or the full `k`-byte RSAVP1
//! output and strips the leading zero byte itself.
//!
//! # Side channels
//! The decryption decoders ([`eme_oaep_decode`],
//! [`eme_pkcs1v15_decode_strict`], [`eme_pkcs1v15_decode_implicit`]) make no
//! branch and no memory access that depends on the decrypted bytes before
//! their single final decision, and every failure is the same opaque
//! [`PaddingError::Decryption`]. Only the public lengths (`k`, the hash) are
//! branched on. The returned message length is, unavoidably, visible; but
//! OAEP's and the implicit-rejection decoder's results keep all k bytes
//! ([`Plaintext`]), so that no allocation, copy or wipe is sized by it.

use core::fmt;

mod ctbytes;
mod implicit;
mod mgf1;
mod oaep;
mod pkcs1v15;
mod plaintext;
mod pss;

pub use implicit::{eme_pkcs1v15_decode_implicit, implicit_rejection_kdk, pkcs1v15_decrypt_implicit};
pub use mgf1::{mgf1, mgf1_xor};
pub use oaep::{
    eme_oaep_decode, eme_oaep_decode_mgf1, eme_oaep_encode, eme_oaep_encode_mgf1, eme_oaep_encode_random,
    eme_oaep_encode_random_mgf1, oaep_max_message_len,
};
pub use pkcs1v15::{
    eme_pkcs1v15_decode_strict, eme_pkcs1v15_encode, emsa_pkcs1v15_decode_raw, emsa_pkcs1v15_encode,
    emsa_pkcs1v15_encode_raw, emsa_pkcs1v15_verify, pkcs1v15_max_message_len,
};
pub use plaintext::Plaintext;
pub use pss::{
    SaltLen, emsa_pss_encode, emsa_pss_encode_mgf1, emsa_pss_encode_random, emsa_pss_encode_random_mgf1,
    emsa_pss_verify, emsa_pss_verify_mgf1, pss_max_salt_len,
};

/// What went wrong in a padding operation.
///
/// Encoding errors say what to fix; every decoding failure is the single
/// opaque [`PaddingError::Decryption`] so that it cannot serve as an oracle.
///
/// ```
/// use redc::{hash::HashAlg, padding::{PaddingError, emsa_pkcs1v15_encode}};
/// let err = emsa_pkcs1v15_encode(HashAlg::Sha256, &[0u8; 20], 256).unwrap_err();
/// assert_eq!(err, PaddingError::WrongDigestLength { len: 20, expected: 32 });
/// assert_eq!(err.to_string(), "wrong digest length: 20 bytes, the hash gives 32");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PaddingError {
    /// The message is longer than the scheme allows for this modulus.
    MessageTooLong {
        /// The message length in bytes.
        len: usize,
        /// The longest message the scheme fits in this modulus.
        max: usize,
    },
    /// The modulus (intended encoded message length) is too short for this
    /// hash, salt or DigestInfo.
    EncodingTooShort {
        /// The encoded message length available, in bytes.
        em_len: usize,
        /// The encoded message length needed, in bytes.
        needed: usize,
    },
    /// A digest (or OAEP seed) whose length is not the hash's output length.
    WrongDigestLength {
        /// The length given.
        len: usize,
        /// The hash's output length.
        expected: usize,
    },
    /// MGF1 cannot produce a mask this long (more than 2^32 hash blocks).
    MaskTooLong,
    /// Decryption failed. Deliberately says nothing more.
    Decryption,
}

impl fmt::Display for PaddingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PaddingError::MessageTooLong { len, max } => {
                write!(
                    f,
                    "message too long: {len} bytes, at most {max} fit this key and padding"
                )
            }
            PaddingError::EncodingTooShort { em_len, needed } => write!(
                f,
                "key too small for this padding: {em_len}-byte encoding, {needed} bytes needed"
            ),
            PaddingError::WrongDigestLength { len, expected } => {
                write!(f, "wrong digest length: {len} bytes, the hash gives {expected}")
            }
            PaddingError::MaskTooLong => f.write_str("MGF1 mask too long"),
            PaddingError::Decryption => f.write_str("decryption error"),
        }
    }
}

impl std::error::Error for PaddingError {}
