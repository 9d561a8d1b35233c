//! Key files: redc's keys to and from PKCS#8, PKCS#1 and SubjectPublicKeyInfo
//! (PEM or DER), through [`crate::keyfile`] (RustCrypto's `pkcs1`, `pkcs8`,
//! `spki` and `der`).

use super::{Error, PrivateComponents, RsaPrivateKey, RsaPublicKey};
use crate::keyfile::{
    self, Encoding, KeyFileError, PrivateKeyFormat, PublicKeyFormat, RsaPrivateComponents,
    RsaPublicComponents,
};
use core::fmt;
use zeroize::Zeroizing;

/// Why a key file could not be loaded: the file's encoding, or the numbers in it.
///
/// ```
/// use redc::keyfile::{Encoding, KeyFileError, PublicKeyFormat, RsaPublicComponents, encode_public_key};
/// use redc::rsa::{KeyLoadError, RsaPublicKey};
/// let err = RsaPublicKey::from_key_file(b"not a key").unwrap_err();
/// assert!(matches!(err, KeyLoadError::File(KeyFileError::NotAKey)));
/// assert_eq!(err.to_string(), "not a PEM or DER key");
/// // A well-formed file whose numbers are no usable key (a 12-bit modulus).
/// let toy = RsaPublicComponents { n: vec![0x0c, 0xa1], e: vec![17] };
/// let pem = encode_public_key(&toy, PublicKeyFormat::Spki, Encoding::Pem).unwrap();
/// assert!(matches!(RsaPublicKey::from_key_file(&pem), Err(KeyLoadError::Key(_))));
/// ```
#[derive(Debug)]
pub enum KeyLoadError {
    /// The file is not a readable key of a supported form.
    File(KeyFileError),
    /// The file parsed, but its numbers are not a usable RSA key.
    Key(Error),
}

impl fmt::Display for KeyLoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyLoadError::File(e) => e.fmt(f),
            KeyLoadError::Key(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for KeyLoadError {}

impl RsaPrivateKey {
    /// Load a private key from any PEM or DER PKCS#8 or PKCS#1 file, as
    /// OpenSSL writes them.
    ///
    /// ```
    /// use redc::keyfile::{Encoding, PrivateKeyFormat};
    /// use redc::rsa::{RsaPrivateKey, keygen, os_rng};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let pem = key.to_key_file(PrivateKeyFormat::Pkcs8, Encoding::Pem).unwrap();
    /// let back = RsaPrivateKey::from_key_file(&pem).unwrap();
    /// assert_eq!(back.public_key(), key.public_key());
    /// ```
    pub fn from_key_file(bytes: &[u8]) -> Result<RsaPrivateKey, KeyLoadError> {
        RsaPrivateKey::from_key_file_with_passphrase(bytes, None)
    }

    /// [`RsaPrivateKey::from_key_file`] that also reads encrypted keys with
    /// `pass` ([`keyfile::decode_private_key_with_passphrase`]).
    pub fn from_key_file_with_passphrase(
        bytes: &[u8],
        pass: Option<&[u8]>,
    ) -> Result<RsaPrivateKey, KeyLoadError> {
        let c = keyfile::decode_private_key_with_passphrase(bytes, pass).map_err(KeyLoadError::File)?;
        RsaPrivateKey::from_private_components(&c).map_err(KeyLoadError::Key)
    }

    /// The key from decoded file components (all eight numbers are checked).
    ///
    /// ```
    /// use redc::rsa::{RsaPrivateKey, keygen, os_rng};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let mut c = key.private_components();
    /// let back = RsaPrivateKey::from_private_components(&c).unwrap();
    /// assert_eq!(back.public_key(), key.public_key());
    /// c.qinv = c.dp.clone(); // inconsistent numbers are refused
    /// assert!(RsaPrivateKey::from_private_components(&c).is_err());
    /// ```
    pub fn from_private_components(c: &RsaPrivateComponents) -> Result<RsaPrivateKey, Error> {
        RsaPrivateKey::from_components(PrivateComponents {
            n: &c.n,
            e: &c.e,
            d: &c.d,
            p: &c.p,
            q: &c.q,
            crt: Some((&c.dp, &c.dq, &c.qinv)),
        })
    }

    /// The eight numbers of the key, for a key file.
    ///
    /// ```
    /// use redc::rsa::{keygen, os_rng};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let c = key.private_components();
    /// assert_eq!(c.n, key.public_key().n_bytes());
    /// assert_eq!(*c.d, *key.d_bytes());
    /// ```
    pub fn private_components(&self) -> RsaPrivateComponents {
        RsaPrivateComponents {
            n: self.public_key().n_bytes(),
            e: self.public_key().e_bytes(),
            d: self.d_bytes(),
            p: self.p_bytes(),
            q: self.q_bytes(),
            dp: self.dp_bytes(),
            dq: self.dq_bytes(),
            qinv: self.qinv_bytes(),
        }
    }

    /// The key as a file: PKCS#8 (`PRIVATE KEY`, OpenSSL 3's default) or
    /// PKCS#1 (`RSA PRIVATE KEY`), PEM or DER. Wiped on drop.
    ///
    /// ```
    /// use redc::keyfile::{Encoding, PrivateKeyFormat};
    /// use redc::rsa::{keygen, os_rng};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let pem = key.to_key_file(PrivateKeyFormat::Pkcs1, Encoding::Pem).unwrap();
    /// assert!(pem.starts_with(b"-----BEGIN RSA PRIVATE KEY-----\n"));
    /// let der = key.to_key_file(PrivateKeyFormat::Pkcs8, Encoding::Der).unwrap();
    /// assert_eq!(der[0], 0x30); // a DER SEQUENCE
    /// ```
    pub fn to_key_file(
        &self,
        format: PrivateKeyFormat,
        encoding: Encoding,
    ) -> Result<Zeroizing<Vec<u8>>, KeyFileError> {
        keyfile::encode_private_key(&self.private_components(), format, encoding)
    }
}

impl RsaPublicKey {
    /// Load a public key from an SPKI or PKCS#1 public key file, or the
    /// public half of any private key file, PEM or DER.
    ///
    /// ```
    /// use redc::keyfile::{Encoding, PrivateKeyFormat, PublicKeyFormat};
    /// use redc::rsa::{RsaPublicKey, keygen, os_rng};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let spki = key.public_key().to_key_file(PublicKeyFormat::Spki, Encoding::Pem).unwrap();
    /// assert_eq!(&RsaPublicKey::from_key_file(&spki).unwrap(), key.public_key());
    /// // The public half of a private key file works too.
    /// let private = key.to_key_file(PrivateKeyFormat::Pkcs8, Encoding::Der).unwrap();
    /// assert_eq!(&RsaPublicKey::from_key_file(&private).unwrap(), key.public_key());
    /// ```
    pub fn from_key_file(bytes: &[u8]) -> Result<RsaPublicKey, KeyLoadError> {
        RsaPublicKey::from_key_file_with_passphrase(bytes, None)
    }

    /// [`RsaPublicKey::from_key_file`] that also reads the public half of
    /// an encrypted private key with `pass`.
    pub fn from_key_file_with_passphrase(
        bytes: &[u8],
        pass: Option<&[u8]>,
    ) -> Result<RsaPublicKey, KeyLoadError> {
        let c = keyfile::decode_public_key_with_passphrase(bytes, pass).map_err(KeyLoadError::File)?;
        RsaPublicKey::new(&c.n, &c.e).map_err(KeyLoadError::Key)
    }

    /// The key as a file: SubjectPublicKeyInfo (`PUBLIC KEY`) or PKCS#1
    /// (`RSA PUBLIC KEY`), PEM or DER.
    ///
    /// ```
    /// use redc::keyfile::{Encoding, PublicKeyFormat};
    /// use redc::rsa::{keygen, os_rng};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let pem = key.public_key().to_key_file(PublicKeyFormat::Spki, Encoding::Pem).unwrap();
    /// assert!(pem.starts_with(b"-----BEGIN PUBLIC KEY-----\n"));
    /// let der = key.public_key().to_key_file(PublicKeyFormat::Pkcs1, Encoding::Der).unwrap();
    /// assert_eq!(der[0], 0x30);
    /// ```
    pub fn to_key_file(&self, format: PublicKeyFormat, encoding: Encoding) -> Result<Vec<u8>, KeyFileError> {
        let c = RsaPublicComponents {
            n: self.n_bytes(),
            e: self.e_bytes(),
        };
        keyfile::encode_public_key(&c, format, encoding)
    }
}
