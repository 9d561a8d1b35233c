//! RSA key files: PKCS#8 and PKCS#1 private keys, SPKI and PKCS#1 public
//! keys, in PEM or DER, read and written with RustCrypto's `pkcs1`, `pkcs8`,
//! `spki` and `der` (no hand-written DER).
//!
//! Reading detects the encoding and the format by itself, as `openssl pkey`
//! does. Writing produces what OpenSSL 3 writes for the same key, byte for
//! byte (PEM with 64-column base64 and LF line endings).
//!
//! Integers are big-endian byte strings without leading zero bytes; the
//! private components are zeroized on drop. The components are taken as
//! they are: checking that they make a consistent RSA key (`n = p q`, ...)
//! is the RSA layer's job.
//!
//! ```
//! use redc::keyfile::{Encoding, PublicKeyFormat, RsaPublicComponents, decode_public_key, encode_public_key};
//! let key = RsaPublicComponents { n: vec![0xc5, 0x0f, 0x2b], e: vec![0x01, 0x00, 0x01] };
//! let pem = encode_public_key(&key, PublicKeyFormat::Spki, Encoding::Pem).unwrap();
//! assert!(pem.starts_with(b"-----BEGIN PUBLIC KEY-----\n"));
//! assert_eq!(decode_public_key(&pem).unwrap(), key);
//! ```
//!
//! The module is split by job, one idea a file:
//!
//! - `components`: the numbers of a key, [`RsaPrivateComponents`] and
//!   [`RsaPublicComponents`], and the check that none is zero.
//! - `formats`: the names of the formats ([`PrivateKeyFormat`],
//!   [`PublicKeyFormat`], [`Encoding`]), their PEM labels and OIDs.
//! - `error`: [`KeyFileError`] and how messages quote untrusted text.
//! - `decode`: reading a key file, detecting PEM or DER and the format.
//! - `parse`: one DER structure (PKCS#8, PKCS#1, SPKI) to components.
//! - `diagnose`: why DER that is no key structure failed, for the message.
//! - `encode`: writing a key file, plain or encrypted.
//! - `encrypted`: passphrase encryption (PBES2, PKCS#12 PBE, legacy PEM).
//! - `pss`: the RSA-PSS algorithm identifier and its parameters.

mod components;
mod decode;
mod diagnose;
mod encode;
mod encrypted;
mod error;
mod formats;
mod parse;
mod pss;

pub use components::{RsaPrivateComponents, RsaPublicComponents};
pub use decode::{
    decode_private_key, decode_private_key_info, decode_private_key_with_passphrase, decode_public_key,
    decode_public_key_info, decode_public_key_with_passphrase,
};
pub use encode::{
    encode_private_key, encode_private_key_encrypted, encode_private_key_encrypted_info,
    encode_private_key_info, encode_public_key, encode_public_key_info,
};
pub use encrypted::{KeyCipher, KeyKdf};
pub use error::{KeyFileError, QUOTE_MAX_CHARS, clip_untrusted, quote_untrusted};
pub use formats::{Encoding, PrivateKeyFormat, PublicKeyFormat};
pub(crate) use parse::{parse_pkcs1_private, parse_pkcs1_public};
pub use pss::{KeyAlgorithm, PssParams, hash_oid};
