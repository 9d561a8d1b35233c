//! The names of the key file formats: the containers a caller picks
//! ([`PrivateKeyFormat`], [`PublicKeyFormat`]), the outer [`Encoding`], and
//! the PEM labels and algorithm OIDs that mark each format in a file.

use spki::ObjectIdentifier;

/// `rsaEncryption`, the OID of ordinary RSA keys.
pub(super) const RSA_ENCRYPTION: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.1");
/// `id-RSASSA-PSS`: RSA keys restricted to PSS signatures.
pub(super) const RSASSA_PSS: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.10");

pub(super) const LABEL_PKCS8: &str = "PRIVATE KEY";
pub(super) const LABEL_PKCS1_PRIVATE: &str = "RSA PRIVATE KEY";
pub(super) const LABEL_SPKI: &str = "PUBLIC KEY";
pub(super) const LABEL_PKCS1_PUBLIC: &str = "RSA PUBLIC KEY";
pub(super) const LABEL_ENCRYPTED: &str = "ENCRYPTED PRIVATE KEY";
/// What `openssl rsa -traditional` writes for an RSA-PSS key: PKCS#1 inside.
pub(super) const LABEL_PKCS1_PSS_PRIVATE: &str = "RSA-PSS PRIVATE KEY";

/// The container of a private key.
///
/// ```
/// use redc::keyfile::{Encoding, PrivateKeyFormat, RsaPrivateComponents, encode_private_key};
/// use zeroize::Zeroizing;
/// // The toy key n = 61 * 53 = 3233, e = 17, d = 413 (lcm form).
/// let z = |v: &[u8]| Zeroizing::new(v.to_vec());
/// let key = RsaPrivateComponents {
///     n: vec![0x0c, 0xa1], e: vec![17], d: z(&[0x01, 0x9d]), p: z(&[61]), q: z(&[53]),
///     dp: z(&[53]), dq: z(&[49]), qinv: z(&[38]),
/// };
/// let pkcs8 = encode_private_key(&key, PrivateKeyFormat::Pkcs8, Encoding::Pem).unwrap();
/// assert!(pkcs8.starts_with(b"-----BEGIN PRIVATE KEY-----\n"));
/// let pkcs1 = encode_private_key(&key, PrivateKeyFormat::Pkcs1, Encoding::Pem).unwrap();
/// assert!(pkcs1.starts_with(b"-----BEGIN RSA PRIVATE KEY-----\n"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrivateKeyFormat {
    /// PKCS#8 `PrivateKeyInfo` (PEM label `PRIVATE KEY`): OpenSSL 3's default.
    Pkcs8,
    /// PKCS#1 `RSAPrivateKey` (PEM label `RSA PRIVATE KEY`): OpenSSL's "traditional" format.
    Pkcs1,
}

/// The container of a public key.
///
/// ```
/// use redc::keyfile::{Encoding, PublicKeyFormat, RsaPublicComponents, encode_public_key};
/// let key = RsaPublicComponents { n: vec![0x0c, 0xa1], e: vec![17] };
/// let spki = encode_public_key(&key, PublicKeyFormat::Spki, Encoding::Pem).unwrap();
/// assert!(spki.starts_with(b"-----BEGIN PUBLIC KEY-----\n"));
/// let pkcs1 = encode_public_key(&key, PublicKeyFormat::Pkcs1, Encoding::Pem).unwrap();
/// assert!(pkcs1.starts_with(b"-----BEGIN RSA PUBLIC KEY-----\n"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PublicKeyFormat {
    /// X.509 `SubjectPublicKeyInfo` (PEM label `PUBLIC KEY`): `openssl pkey -pubout`.
    Spki,
    /// PKCS#1 `RSAPublicKey` (PEM label `RSA PUBLIC KEY`): `openssl rsa -RSAPublicKey_out`.
    Pkcs1,
}

/// The outer encoding of a key file.
///
/// ```
/// use redc::keyfile::{Encoding, PublicKeyFormat, RsaPublicComponents, decode_public_key, encode_public_key};
/// let key = RsaPublicComponents { n: vec![0x0c, 0xa1], e: vec![17] };
/// let der = encode_public_key(&key, PublicKeyFormat::Spki, Encoding::Der).unwrap();
/// assert_eq!(der[0], 0x30); // a DER SEQUENCE
/// let pem = encode_public_key(&key, PublicKeyFormat::Spki, Encoding::Pem).unwrap();
/// assert!(pem.ends_with(b"-----END PUBLIC KEY-----\n"));
/// // Reading detects the encoding by itself.
/// assert_eq!(decode_public_key(&der).unwrap(), decode_public_key(&pem).unwrap());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// Base64 text between `-----BEGIN ...-----` lines (RFC 7468), LF line endings.
    Pem,
    /// Binary DER.
    Der,
}
