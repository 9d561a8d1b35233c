//! The `pkcs1` crate's traits on the key types, as the `rsa` crate has
//! them: `DecodeRsaPrivateKey`, `EncodeRsaPrivateKey` (`RSA PRIVATE KEY`)
//! and `DecodeRsaPublicKey`, `EncodeRsaPublicKey` (`RSA PUBLIC KEY`).
//! Decoding goes through [`crate::keyfile`] and the key checks, as every
//! other import does.
//!
//! ```
//! use redc::pkcs1::{DecodeRsaPrivateKey, DecodeRsaPublicKey, EncodeRsaPrivateKey, EncodeRsaPublicKey, LineEnding};
//! use redc::rsa::{RsaPrivateKey, RsaPublicKey, os_rng};
//! let key = RsaPrivateKey::new(&mut os_rng(), 1024)?;
//! let pem = key.to_pkcs1_pem(LineEnding::LF)?;
//! assert!(pem.starts_with("-----BEGIN RSA PRIVATE KEY-----"));
//! assert_eq!(RsaPrivateKey::from_pkcs1_pem(&pem)?.public_key(), key.public_key());
//! let public = key.to_public_key();
//! let der = public.to_pkcs1_der()?;
//! assert_eq!(RsaPublicKey::from_pkcs1_der(der.as_bytes())?, public);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::{RsaPrivateKey, RsaPublicKey};
use crate::keyfile::{self, Encoding, KeyFileError, PrivateKeyFormat, PublicKeyFormat};
use der::{Decode, Document, SecretDocument};
use pkcs1::{DecodeRsaPrivateKey, DecodeRsaPublicKey, EncodeRsaPrivateKey, EncodeRsaPublicKey};

/// A structure that parsed but that redc does not take: a multi-prime key
/// is a version error, as in the `pkcs1` crate; the rest is malformed.
fn file_error(e: KeyFileError) -> pkcs1::Error {
    match e {
        KeyFileError::MultiPrime => pkcs1::Error::Version,
        _ => pkcs1::Error::KeyMalformed,
    }
}

impl DecodeRsaPrivateKey for RsaPrivateKey {
    /// PKCS#1 `RSAPrivateKey` DER only (not PKCS#8: see
    /// `pkcs8::DecodePrivateKey`). Numbers that are no valid key:
    /// [`pkcs1::Error::Crypto`].
    fn from_pkcs1_der(bytes: &[u8]) -> pkcs1::Result<Self> {
        // The pkcs1 crate's own DER errors first, then redc's checks.
        pkcs1::RsaPrivateKeyRef::from_der(bytes)?;
        let c = keyfile::parse_pkcs1_private(bytes).map_err(file_error)?;
        RsaPrivateKey::from_private_components(&c).map_err(|_| pkcs1::Error::Crypto)
    }
}

impl EncodeRsaPrivateKey for RsaPrivateKey {
    fn to_pkcs1_der(&self) -> pkcs1::Result<SecretDocument> {
        let der = self
            .to_key_file(PrivateKeyFormat::Pkcs1, Encoding::Der)
            .map_err(file_error)?;
        Ok(SecretDocument::try_from(der.as_slice())?)
    }
}

impl DecodeRsaPublicKey for RsaPublicKey {
    /// PKCS#1 `RSAPublicKey` DER only (not SubjectPublicKeyInfo: see
    /// `spki::DecodePublicKey`). Numbers that are no usable key:
    /// [`pkcs1::Error::Crypto`].
    fn from_pkcs1_der(bytes: &[u8]) -> pkcs1::Result<Self> {
        pkcs1::RsaPublicKeyRef::from_der(bytes)?;
        let c = keyfile::parse_pkcs1_public(bytes).map_err(file_error)?;
        RsaPublicKey::new(&c.n, &c.e).map_err(|_| pkcs1::Error::Crypto)
    }
}

impl EncodeRsaPublicKey for RsaPublicKey {
    fn to_pkcs1_der(&self) -> pkcs1::Result<Document> {
        let der = self
            .to_key_file(PublicKeyFormat::Pkcs1, Encoding::Der)
            .map_err(file_error)?;
        Ok(Document::from_der(&der)?)
    }
}
