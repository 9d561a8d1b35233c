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

use core::fmt;

use der::asn1::{AnyRef, BitStringRef, OctetStringRef, UintRef};
use der::pem::LineEnding;
use der::{Decode, Document, Encode, Reader, SecretDocument, SliceReader};
use pkcs8::PrivateKeyInfoRef;
use spki::{AlgorithmIdentifierRef, ObjectIdentifier, SubjectPublicKeyInfoRef};
use zeroize::Zeroizing;

mod encrypted;
mod pss;
pub use encrypted::{KeyCipher, KeyKdf};
pub use pss::{KeyAlgorithm, PssParams, hash_oid};

/// `rsaEncryption`, the OID of ordinary RSA keys.
const RSA_ENCRYPTION: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.1");
/// `id-RSASSA-PSS`: RSA keys restricted to PSS signatures.
const RSASSA_PSS: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.10");

const LABEL_PKCS8: &str = "PRIVATE KEY";
const LABEL_PKCS1_PRIVATE: &str = "RSA PRIVATE KEY";
const LABEL_SPKI: &str = "PUBLIC KEY";
const LABEL_PKCS1_PUBLIC: &str = "RSA PUBLIC KEY";
const LABEL_ENCRYPTED: &str = "ENCRYPTED PRIVATE KEY";
/// What `openssl rsa -traditional` writes for an RSA-PSS key: PKCS#1 inside.
const LABEL_PKCS1_PSS_PRIVATE: &str = "RSA-PSS PRIVATE KEY";

/// The components of a two-prime RSA private key (RFC 8017 §A.1.2).
/// Big-endian unsigned integers (no leading zero bytes), secrets zeroized on
/// drop.
///
/// ```
/// use redc::keyfile::RsaPrivateComponents;
/// use zeroize::Zeroizing;
/// // The toy key n = 61 * 53 = 3233, e = 17, d = 413 (lcm form).
/// let z = |v: &[u8]| Zeroizing::new(v.to_vec());
/// let key = RsaPrivateComponents {
///     n: vec![0x0c, 0xa1], e: vec![17], d: z(&[0x01, 0x9d]), p: z(&[61]), q: z(&[53]),
///     dp: z(&[53]), dq: z(&[49]), qinv: z(&[38]),
/// };
/// // Debug shows the public numbers only.
/// assert_eq!(format!("{key:?}"), "RsaPrivateComponents { n: 0ca1, e: 11, .. }");
/// ```
#[derive(Clone)]
pub struct RsaPrivateComponents {
    /// The modulus `n = p q`.
    pub n: Vec<u8>,
    /// The public exponent `e`.
    pub e: Vec<u8>,
    /// The private exponent `d`.
    pub d: Zeroizing<Vec<u8>>,
    /// The first prime `p`.
    pub p: Zeroizing<Vec<u8>>,
    /// The second prime `q`.
    pub q: Zeroizing<Vec<u8>>,
    /// `d mod (p - 1)`.
    pub dp: Zeroizing<Vec<u8>>,
    /// `d mod (q - 1)`.
    pub dq: Zeroizing<Vec<u8>>,
    /// `q^-1 mod p`.
    pub qinv: Zeroizing<Vec<u8>>,
}

impl RsaPrivateComponents {
    /// The public half: `(n, e)`.
    ///
    /// ```
    /// use redc::keyfile::{RsaPrivateComponents, RsaPublicComponents};
    /// use zeroize::Zeroizing;
    /// let z = |v: &[u8]| Zeroizing::new(v.to_vec());
    /// let key = RsaPrivateComponents {
    ///     n: vec![0x0c, 0xa1], e: vec![17], d: z(&[0x01, 0x9d]), p: z(&[61]), q: z(&[53]),
    ///     dp: z(&[53]), dq: z(&[49]), qinv: z(&[38]),
    /// };
    /// assert_eq!(key.public(), RsaPublicComponents { n: vec![0x0c, 0xa1], e: vec![17] });
    /// ```
    pub fn public(&self) -> RsaPublicComponents {
        RsaPublicComponents {
            n: self.n.clone(),
            e: self.e.clone(),
        }
    }
}

impl fmt::Debug for RsaPrivateComponents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RsaPrivateComponents")
            .field("n", &Hex(&self.n))
            .field("e", &Hex(&self.e))
            .finish_non_exhaustive()
    }
}

/// The components of an RSA public key. Big-endian unsigned integers (no
/// leading zero bytes).
///
/// ```
/// use redc::keyfile::RsaPublicComponents;
/// let key = RsaPublicComponents { n: vec![0x0c, 0xa1], e: vec![17] };
/// assert_eq!(format!("{key:?}"), "RsaPublicComponents { n: 0ca1, e: 11 }");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct RsaPublicComponents {
    /// The modulus `n`.
    pub n: Vec<u8>,
    /// The public exponent `e`.
    pub e: Vec<u8>,
}

impl fmt::Debug for RsaPublicComponents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RsaPublicComponents")
            .field("n", &Hex(&self.n))
            .field("e", &Hex(&self.e))
            .finish()
    }
}

struct Hex<'a>(&'a [u8]);

impl fmt::Debug for Hex<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

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

/// Why a key file could not be read or written. `Display` is one line a
/// command-line tool can print.
///
/// ```
/// use redc::keyfile::*;
/// let key = RsaPublicComponents { n: vec![0x0c, 0xa1], e: vec![17] };
/// let pem = encode_public_key(&key, PublicKeyFormat::Spki, Encoding::Pem).unwrap();
/// let err = decode_private_key(&pem).unwrap_err();
/// assert_eq!(err, KeyFileError::PublicKeyOnly);
/// assert_eq!(err.to_string(), "this is a public key; a private key is needed");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyFileError {
    /// Neither PEM text nor a DER structure.
    NotAKey,
    /// PEM text that does not decode (bad base64, missing end line, ...).
    BadPem(String),
    /// A PEM block of a kind that is no RSA key file (a certificate, ...).
    UnsupportedPemLabel(String),
    /// DER that is truncated or is not one of the key structures.
    Malformed(String),
    /// An encrypted private key (PKCS#8 `ENCRYPTED PRIVATE KEY` or a legacy
    /// `Proc-Type: 4,ENCRYPTED` PEM) and no passphrase to decrypt it.
    Encrypted,
    /// An encrypted private key that does not decrypt with the passphrase
    /// given: a wrong passphrase (or a damaged key).
    BadPassphrase,
    /// A key of another algorithm; says which.
    NotRsa(String),
    /// An RSA key restricted to PSS (`id-RSASSA-PSS`); not supported.
    RsaPssRestricted,
    /// A multi-prime key (`otherPrimeInfos`); not supported.
    MultiPrime,
    /// A public key where a private key is needed.
    PublicKeyOnly,
    /// A component that cannot be encoded: empty or zero.
    InvalidComponent(&'static str),
    /// The DER or PEM encoder failed.
    Encode(String),
}

impl fmt::Display for KeyFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyFileError::NotAKey => f.write_str("not a PEM or DER key"),
            KeyFileError::BadPem(e) => write!(f, "malformed PEM: {e}"),
            KeyFileError::UnsupportedPemLabel(l) => write!(
                f,
                "unsupported PEM type '{}' (expected PRIVATE KEY, RSA PRIVATE KEY, PUBLIC KEY or RSA PUBLIC KEY)",
                quote_untrusted(l)
            ),
            KeyFileError::Malformed(e) => write!(f, "malformed key: {e}"),
            KeyFileError::Encrypted => {
                f.write_str("the private key is encrypted and no passphrase was given")
            }
            KeyFileError::BadPassphrase => {
                f.write_str("cannot decrypt the private key: wrong passphrase (or a damaged key)")
            }
            KeyFileError::NotRsa(what) => write!(f, "not an RSA key ({what})"),
            KeyFileError::RsaPssRestricted => f.write_str(
                "an RSA-PSS-restricted key (algorithm 1.2.840.113549.1.1.10) where any RSA key is expected",
            ),
            KeyFileError::MultiPrime => f.write_str("multi-prime RSA keys are not supported"),
            KeyFileError::PublicKeyOnly => f.write_str("this is a public key; a private key is needed"),
            KeyFileError::InvalidComponent(name) => write!(f, "invalid key: component {name} is zero"),
            KeyFileError::Encode(e) => write!(f, "cannot encode the key: {e}"),
        }
    }
}

impl std::error::Error for KeyFileError {}

/// Longest piece of untrusted text (a PEM label, a file name) an error
/// message quotes, in characters.
pub const QUOTE_MAX_CHARS: usize = 64;

/// Untrusted text made fit for a one-line message: control characters
/// (newlines, escapes, ...) written as Rust escapes, and at most
/// `max_chars` characters of the original kept, "..." marking a cut.
///
/// ```
/// use redc::keyfile::clip_untrusted;
/// assert_eq!(clip_untrusted("a\nb\x1b[31m", 10), "a\\nb\\u{1b}[31m");
/// assert_eq!(clip_untrusted("abcdef", 3), "abc...");
/// assert_eq!(clip_untrusted("abc", 3), "abc");
/// ```
pub fn clip_untrusted(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    for c in chars.by_ref().take(max_chars) {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    if chars.next().is_some() {
        out.push_str("...");
    }
    out
}

/// [`clip_untrusted`] to [`QUOTE_MAX_CHARS`]: how every error message of
/// redc quotes text it was given.
///
/// ```
/// use redc::keyfile::quote_untrusted;
/// let long = "X".repeat(5000);
/// assert_eq!(quote_untrusted(&long), format!("{}...", "X".repeat(64)));
/// assert_eq!(quote_untrusted("key\n.pem"), "key\\n.pem");
/// ```
pub fn quote_untrusted(text: &str) -> String {
    clip_untrusted(text, QUOTE_MAX_CHARS)
}

/// A key read from a file: private or only public.
enum Decoded {
    Private(RsaPrivateComponents, KeyAlgorithm),
    Public(RsaPublicComponents, KeyAlgorithm),
}

/// Refuse an RSA-PSS key where only plain RSA keys are expected.
fn plain_rsa<T>((key, alg): (T, KeyAlgorithm)) -> Result<T, KeyFileError> {
    match alg {
        KeyAlgorithm::Rsa => Ok(key),
        KeyAlgorithm::RsaPss(_) => Err(KeyFileError::RsaPssRestricted),
    }
}

/// Read a private key with what its file says it is for: plain RSA, or
/// RSA-PSS (`id-RSASSA-PSS` in PKCS#8, with or without parameters, or the
/// `RSA-PSS PRIVATE KEY` label of `openssl rsa -traditional`). Encrypted
/// keys are read with `pass` as in [`decode_private_key_with_passphrase`].
///
/// ```
/// use redc::{hash::HashAlg, keyfile::*};
/// use zeroize::Zeroizing;
/// let z = |v: &[u8]| Zeroizing::new(v.to_vec());
/// let key = RsaPrivateComponents {
///     n: vec![0x0c, 0xa1], e: vec![17], d: z(&[0x01, 0x9d]), p: z(&[61]), q: z(&[53]),
///     dp: z(&[53]), dq: z(&[49]), qinv: z(&[38]),
/// };
/// let pss = KeyAlgorithm::RsaPss(Some(PssParams { hash: HashAlg::Sha256, mgf1_hash: HashAlg::Sha256, salt_len: 32 }));
/// let der = encode_private_key_info(&key, pss, PrivateKeyFormat::Pkcs8, Encoding::Der).unwrap();
/// let (back, alg) = decode_private_key_info(&der, None).unwrap();
/// assert_eq!((back.n, alg), (key.n.clone(), pss));
/// // The plain-RSA readers refuse it.
/// assert_eq!(decode_private_key(&der).unwrap_err(), KeyFileError::RsaPssRestricted);
/// ```
pub fn decode_private_key_info(
    input: &[u8],
    pass: Option<&[u8]>,
) -> Result<(RsaPrivateComponents, KeyAlgorithm), KeyFileError> {
    match decode_any(input, pass)? {
        Decoded::Private(k, alg) => Ok((k, alg)),
        Decoded::Public(..) => Err(KeyFileError::PublicKeyOnly),
    }
}

/// Read a public key (or a private key's public half) with what its file
/// says it is for, as [`decode_private_key_info`].
pub fn decode_public_key_info(
    input: &[u8],
    pass: Option<&[u8]>,
) -> Result<(RsaPublicComponents, KeyAlgorithm), KeyFileError> {
    match decode_any(input, pass)? {
        Decoded::Private(k, alg) => Ok((k.public(), alg)),
        Decoded::Public(k, alg) => Ok((k, alg)),
    }
}

/// Read a private key: PKCS#8 (`PRIVATE KEY`) or PKCS#1 (`RSA PRIVATE
/// KEY`), PEM or DER, detected from the input.
///
/// Errors say what the input is when it is not usable: not a key at all,
/// an encrypted key, another algorithm (`not an RSA key (algorithm
/// 1.2.840.10045.2.1, EC)`), an RSA-PSS-restricted or multi-prime key, a
/// public key, malformed or truncated data.
///
/// ```
/// use redc::keyfile::{KeyFileError, decode_private_key};
/// assert_eq!(decode_private_key(b"").unwrap_err(), KeyFileError::NotAKey);
/// let e = decode_private_key(b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
/// assert!(matches!(e, Err(KeyFileError::UnsupportedPemLabel(_))));
/// ```
pub fn decode_private_key(input: &[u8]) -> Result<RsaPrivateComponents, KeyFileError> {
    decode_private_key_with_passphrase(input, None)
}

/// [`decode_private_key`] that also reads encrypted keys, with `pass`:
/// PKCS#8 `ENCRYPTED PRIVATE KEY` (PBES2 with PBKDF2 or scrypt and AES-CBC
/// or DES-EDE3-CBC; `pbeWithSHAAnd3-KeyTripleDES-CBC`) in PEM or DER, and
/// the legacy OpenSSL PEM (`Proc-Type: 4,ENCRYPTED`, `DEK-Info:
/// AES-128-CBC` ... `DES-EDE3-CBC`). An unencrypted key is read as it is.
///
/// Errors: [`KeyFileError::Encrypted`] when the key is encrypted and `pass`
/// is `None`; [`KeyFileError::BadPassphrase`] when it does not decrypt.
///
/// ```
/// use redc::keyfile::*;
/// use zeroize::Zeroizing;
/// let z = |v: &[u8]| Zeroizing::new(v.to_vec());
/// let key = RsaPrivateComponents {
///     n: vec![0x0c, 0xa1], e: vec![17], d: z(&[0x01, 0x9d]), p: z(&[61]), q: z(&[53]),
///     dp: z(&[53]), dq: z(&[49]), qinv: z(&[38]),
/// };
/// let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
/// let kdf = KeyKdf::Pbkdf2Sha256 { iterations: 10 };
/// let pem = encode_private_key_encrypted(&key, PrivateKeyFormat::Pkcs8, Encoding::Pem,
///     b"secret", KeyCipher::Aes256Cbc, kdf, &mut rng).unwrap();
/// assert!(pem.starts_with(b"-----BEGIN ENCRYPTED PRIVATE KEY-----\n"));
/// assert_eq!(decode_private_key(&pem).unwrap_err(), KeyFileError::Encrypted);
/// let wrong = decode_private_key_with_passphrase(&pem, Some(b"wrong"));
/// assert_eq!(wrong.unwrap_err(), KeyFileError::BadPassphrase);
/// let back = decode_private_key_with_passphrase(&pem, Some(b"secret")).unwrap();
/// assert_eq!(*back.d, *key.d);
/// ```
pub fn decode_private_key_with_passphrase(
    input: &[u8],
    pass: Option<&[u8]>,
) -> Result<RsaPrivateComponents, KeyFileError> {
    plain_rsa(decode_private_key_info(input, pass)?)
}

/// Read a public key: SPKI (`PUBLIC KEY`) or PKCS#1 (`RSA PUBLIC KEY`), PEM
/// or DER; any private key file [`decode_private_key`] reads is accepted
/// too, and gives its public half.
///
/// ```
/// use redc::keyfile::{KeyFileError, decode_public_key};
/// assert_eq!(decode_public_key(b"hello").unwrap_err(), KeyFileError::NotAKey);
/// ```
pub fn decode_public_key(input: &[u8]) -> Result<RsaPublicComponents, KeyFileError> {
    decode_public_key_with_passphrase(input, None)
}

/// [`decode_public_key`] that also reads the public half of an encrypted
/// private key, with `pass` (see [`decode_private_key_with_passphrase`]).
pub fn decode_public_key_with_passphrase(
    input: &[u8],
    pass: Option<&[u8]>,
) -> Result<RsaPublicComponents, KeyFileError> {
    plain_rsa(decode_public_key_info(input, pass)?)
}

fn decode_any(input: &[u8], pass: Option<&[u8]>) -> Result<Decoded, KeyFileError> {
    if let Some(start) = find(input, b"-----BEGIN ") {
        // The first block only, as OpenSSL reads it: text before and after
        // (explanatory text, a certificate) is ignored.
        let block = &input[start..];
        let Some(end) =
            find(block, b"-----END ").and_then(|e| find(&block[e + 9..], b"-----").map(|d| e + 9 + d + 5))
        else {
            // A file cut short: say so rather than the decoder's "pre-encapsulation boundary".
            let begin = block.split(|&b| b == b'\n').next().unwrap_or_default();
            let begin = String::from_utf8_lossy(begin);
            return Err(KeyFileError::BadPem(format!(
                "no END line after '{}': the file is cut short",
                quote_untrusted(begin.trim_end())
            )));
        };
        return decode_pem(&block[..end], pass);
    }
    if input.first() == Some(&0x30) {
        return decode_der(input, pass);
    }
    Err(KeyFileError::NotAKey)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn decode_pem(pem: &[u8], pass: Option<&[u8]>) -> Result<Decoded, KeyFileError> {
    // `RSA-PSS PRIVATE KEY` (openssl rsa -traditional of an RSA-PSS key) is
    // no RFC 7468 label (no hyphen allowed): read it as PKCS#1 under `RSA
    // PRIVATE KEY`, and mark the key as RSA-PSS without parameters.
    let pss_begin = b"-----BEGIN RSA-PSS PRIVATE KEY-----";
    if pem.starts_with(pss_begin) && find(pem, b"Proc-Type: 4,ENCRYPTED").is_none() {
        let renamed = String::from_utf8_lossy(pem).replace("RSA-PSS PRIVATE KEY", LABEL_PKCS1_PRIVATE);
        let renamed = Zeroizing::new(renamed.into_bytes());
        return match decode_pem(&renamed, pass)? {
            Decoded::Private(k, KeyAlgorithm::Rsa) => Ok(Decoded::Private(k, KeyAlgorithm::RsaPss(None))),
            other => Ok(other),
        };
    }
    // Legacy OpenSSL encryption puts RFC 1421 headers inside the block.
    if find(pem, b"Proc-Type: 4,ENCRYPTED").is_some() {
        let legacy = encrypted::parse_legacy(pem)?;
        let Some(pass) = pass else {
            return Err(KeyFileError::Encrypted);
        };
        let der = legacy.decrypt(pass)?;
        // A wrong passphrase that happens to unpad gives garbage, not a key.
        return match legacy.label() {
            LABEL_PKCS1_PRIVATE | LABEL_PKCS8 => {
                decode_der(&der, None).map_err(|_| KeyFileError::BadPassphrase)
            }
            LABEL_PKCS1_PSS_PRIVATE => match decode_der(&der, None) {
                Ok(Decoded::Private(k, _)) => Ok(Decoded::Private(k, KeyAlgorithm::RsaPss(None))),
                _ => Err(KeyFileError::BadPassphrase),
            },
            other => Err(KeyFileError::UnsupportedPemLabel(other.to_string())),
        };
    }
    // Only the first block counts; the label decides the parser first.
    let label = der::pem::decode_label(pem)
        .map_err(|e| KeyFileError::BadPem(e.to_string()))?
        .to_string();
    if label == LABEL_ENCRYPTED {
        let mut buf = Zeroizing::new(vec![0u8; pem.len()]);
        let (_, der) = der::pem::decode(pem, &mut buf).map_err(|e| KeyFileError::BadPem(e.to_string()))?;
        return decode_encrypted_der(der, pass);
    }
    let parse: fn(&[u8]) -> Result<Decoded, KeyFileError> = match label.as_str() {
        LABEL_PKCS8 => |d| parse_pkcs8(d).map(|(k, a)| Decoded::Private(k, a)),
        LABEL_PKCS1_PRIVATE => |d| parse_pkcs1_private(d).map(|k| Decoded::Private(k, KeyAlgorithm::Rsa)),
        LABEL_SPKI => |d| parse_spki(d).map(|(k, a)| Decoded::Public(k, a)),
        LABEL_PKCS1_PUBLIC => |d| parse_pkcs1_public(d).map(|k| Decoded::Public(k, KeyAlgorithm::Rsa)),
        "EC PRIVATE KEY" | "EC PARAMETERS" | "DSA PRIVATE KEY" | "DH PARAMETERS" | "X9.42 DH PARAMETERS" => {
            return Err(KeyFileError::NotRsa(format!("PEM type '{label}'")));
        }
        _ => return Err(KeyFileError::UnsupportedPemLabel(label)),
    };
    // Base64 is at most 3/4 of the text: decode into a buffer that is zeroized.
    let mut buf = Zeroizing::new(vec![0u8; pem.len()]);
    let (_, der) = der::pem::decode(pem, &mut buf).map_err(|e| KeyFileError::BadPem(e.to_string()))?;
    match parse(der) {
        // The content decides, as in OpenSSL: PKCS#8 under `RSA PRIVATE
        // KEY`, SPKI under `RSA PUBLIC KEY`, ... are read when the DER is
        // unambiguously another key structure; otherwise the label's
        // parser says what is wrong.
        // A private label keeps to private content and a public one to
        // public content, as `openssl pkey -pubin` refuses a private key
        // under `PUBLIC KEY`.
        Err(KeyFileError::Malformed(why)) => {
            let private_label = matches!(
                label.as_str(),
                LABEL_PKCS8 | LABEL_PKCS1_PRIVATE | LABEL_PKCS1_PSS_PRIVATE
            );
            match decode_der(der, pass) {
                Ok(d @ Decoded::Private(..)) if private_label => Ok(d),
                Ok(d @ Decoded::Public(..)) if !private_label => Ok(d),
                _ => Err(KeyFileError::Malformed(why)),
            }
        }
        other => other,
    }
}

fn decode_encrypted_der(der: &[u8], pass: Option<&[u8]>) -> Result<Decoded, KeyFileError> {
    if !is_encrypted_pkcs8(der) {
        return Err(KeyFileError::Malformed(describe_der_failure(der)));
    }
    let Some(pass) = pass else {
        return Err(KeyFileError::Encrypted);
    };
    let plain = encrypted::decrypt_pkcs8(der, pass)?;
    // A wrong passphrase that happens to unpad gives garbage, not a key.
    if PrivateKeyInfoRef::from_der(plain.as_bytes()).is_err() {
        return Err(KeyFileError::BadPassphrase);
    }
    parse_pkcs8(plain.as_bytes()).map(|(k, a)| Decoded::Private(k, a))
}

/// DER of unknown kind: try each structure, most common first.
fn decode_der(der: &[u8], pass: Option<&[u8]>) -> Result<Decoded, KeyFileError> {
    if PrivateKeyInfoRef::from_der(der).is_ok() {
        return parse_pkcs8(der).map(|(k, a)| Decoded::Private(k, a));
    }
    if pkcs1::RsaPrivateKeyRef::from_der(der).is_ok() {
        return parse_pkcs1_private(der).map(|k| Decoded::Private(k, KeyAlgorithm::Rsa));
    }
    if is_encrypted_pkcs8(der) {
        return decode_encrypted_der(der, pass);
    }
    if SubjectPublicKeyInfoRef::from_der(der).is_ok() {
        return parse_spki(der).map(|(k, a)| Decoded::Public(k, a));
    }
    if pkcs1::RsaPublicKeyRef::from_der(der).is_ok() {
        return parse_pkcs1_public(der).map(|k| Decoded::Public(k, KeyAlgorithm::Rsa));
    }
    Err(KeyFileError::Malformed(describe_der_failure(der)))
}

/// Why DER that is none of the structures failed: truncation is the usual
/// reason worth telling.
fn describe_der_failure(der: &[u8]) -> String {
    let header = SliceReader::new(der)
        .ok()
        .and_then(|r| der::Header::peek(&r).ok());
    if let Some(h) = header {
        let header_len = h
            .encoded_len()
            .ok()
            .and_then(|l| usize::try_from(l).ok())
            .unwrap_or(0);
        let body_len = usize::try_from(h.length()).unwrap_or(usize::MAX);
        let total = header_len.saturating_add(body_len);
        if total > der.len() {
            return format!("truncated DER ({} bytes of {total})", der.len());
        }
        if total < der.len() {
            return format!(
                "{} bytes of trailing data after the DER structure",
                der.len() - total
            );
        }
    }
    // A SEQUENCE of INTEGERs: PKCS#1, and the field at fault can be named.
    if let Some(count) = integer_sequence_len(der) {
        let fields: &[&str] = if count >= PRIVATE_FIELDS.len() {
            &PRIVATE_FIELDS
        } else {
            &PUBLIC_FIELDS
        };
        if let Some(why) = field_at_fault(der, fields) {
            let what = if count >= PRIVATE_FIELDS.len() {
                "RSAPrivateKey"
            } else {
                "RSAPublicKey"
            };
            return format!("PKCS#1 {what}: {why}");
        }
    }
    "not a PKCS#8, PKCS#1 or SubjectPublicKeyInfo structure".to_string()
}

/// The number of elements of a SEQUENCE whose first element is an INTEGER
/// (`None` for anything else).
fn integer_sequence_len(der: &[u8]) -> Option<usize> {
    let mut reader = SliceReader::new(der).ok()?;
    let mut count = 0usize;
    let mut first_is_integer = false;
    let _: der::Result<()> = reader.sequence(|r| {
        while !r.is_finished() {
            let any: AnyRef<'_> = r.decode()?;
            if count == 0 {
                first_is_integer = der::Tagged::tag(&any) == der::Tag::Integer;
            }
            count += 1;
        }
        Ok(())
    });
    (first_is_integer && count > 0).then_some(count)
}

/// `EncryptedPrivateKeyInfo ::= SEQUENCE { AlgorithmIdentifier, OCTET STRING }`.
fn is_encrypted_pkcs8(der: &[u8]) -> bool {
    let Ok(mut reader) = SliceReader::new(der) else {
        return false;
    };
    let parsed: der::Result<()> = reader.sequence(|r| {
        let _alg: AlgorithmIdentifierRef<'_> = r.decode()?;
        let _data: &OctetStringRef = r.decode()?;
        Ok(())
    });
    parsed.is_ok() && reader.finish().is_ok()
}

fn malformed(e: impl fmt::Display) -> KeyFileError {
    KeyFileError::Malformed(e.to_string())
}

/// `rsaEncryption` or `id-RSASSA-PSS` (with its parameters); refuse
/// anything else, naming what it is.
fn key_algorithm(alg: &AlgorithmIdentifierRef<'_>) -> Result<KeyAlgorithm, KeyFileError> {
    let oid = alg.oid;
    if oid == RSA_ENCRYPTION {
        return Ok(KeyAlgorithm::Rsa);
    }
    if oid == RSASSA_PSS {
        return Ok(KeyAlgorithm::RsaPss(pss::parse_params(alg.parameters)?));
    }
    let name = match oid.to_string().as_str() {
        "1.2.840.10045.2.1" => ", EC",
        "1.3.101.110" => ", X25519",
        "1.3.101.111" => ", X448",
        "1.3.101.112" => ", Ed25519",
        "1.3.101.113" => ", Ed448",
        "1.2.840.10040.4.1" => ", DSA",
        "1.2.840.113549.1.3.1" | "1.2.840.10046.2.1" => ", DH",
        "1.2.156.10197.1.301" => ", SM2",
        _ => "",
    };
    Err(KeyFileError::NotRsa(format!("algorithm {oid}{name}")))
}

fn parse_pkcs8(der: &[u8]) -> Result<(RsaPrivateComponents, KeyAlgorithm), KeyFileError> {
    let info = PrivateKeyInfoRef::from_der(der).map_err(malformed)?;
    let alg = key_algorithm(&info.algorithm)?;
    Ok((parse_pkcs1_private(info.private_key.as_bytes())?, alg))
}

/// The fields of `RSAPrivateKey` (RFC 8017 §A.1.2), as OpenSSL names them.
const PRIVATE_FIELDS: [&str; 9] = [
    "version",
    "modulus",
    "publicExponent",
    "privateExponent",
    "prime1",
    "prime2",
    "exponent1",
    "exponent2",
    "coefficient",
];

/// The fields of `RSAPublicKey` (RFC 8017 §A.1.1).
const PUBLIC_FIELDS: [&str; 2] = ["modulus", "publicExponent"];

/// Which field of a SEQUENCE of INTEGERs is at fault, and why: walks the
/// fields in order (a `version` field must be 0, or 1 for the multi-prime
/// form). `None` when every named field reads (the fault is elsewhere).
fn field_at_fault(der: &[u8], fields: &[&str]) -> Option<String> {
    let mut reader = SliceReader::new(der).ok()?;
    let mut fault = None;
    let _: der::Result<()> = reader.sequence(|r| {
        for name in fields {
            match r.decode::<UintRef<'_>>() {
                Ok(v) if *name == "version" => {
                    let bytes = v.as_bytes();
                    if bytes.len() > 1 || bytes.first().is_some_and(|&b| b > 1) {
                        let shown = if bytes.len() <= 8 {
                            bytes
                                .iter()
                                .fold(0u64, |a, &b| (a << 8) | u64::from(b))
                                .to_string()
                        } else {
                            "too large".to_string()
                        };
                        fault = Some(format!(
                            "version {shown} (expected 0, or 1 for a multi-prime key)"
                        ));
                        return Err(der::ErrorKind::Failed.into());
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    fault = Some(format!("{name}: {e}"));
                    return Err(e);
                }
            }
        }
        // Whatever follows (otherPrimeInfos) is not ours to judge here.
        while !r.is_finished() {
            let _: AnyRef<'_> = r.decode()?;
        }
        Ok(())
    });
    fault
}

pub(crate) fn parse_pkcs1_private(der: &[u8]) -> Result<RsaPrivateComponents, KeyFileError> {
    let key = pkcs1::RsaPrivateKeyRef::from_der(der)
        .map_err(|e| malformed(field_at_fault(der, &PRIVATE_FIELDS).unwrap_or_else(|| e.to_string())))?;
    if key.other_prime_infos.is_some() {
        return Err(KeyFileError::MultiPrime);
    }
    let secret = |u: &UintRef<'_>| Zeroizing::new(u.as_bytes().to_vec());
    let c = RsaPrivateComponents {
        n: key.modulus.as_bytes().to_vec(),
        e: key.public_exponent.as_bytes().to_vec(),
        d: secret(&key.private_exponent),
        p: secret(&key.prime1),
        q: secret(&key.prime2),
        dp: secret(&key.exponent1),
        dq: secret(&key.exponent2),
        qinv: secret(&key.coefficient),
    };
    check_private(&c).map_err(|e| match e {
        KeyFileError::InvalidComponent(name) => malformed(format_args!("component {name} is zero")),
        other => other,
    })?;
    Ok(c)
}

fn parse_spki(der: &[u8]) -> Result<(RsaPublicComponents, KeyAlgorithm), KeyFileError> {
    let info = SubjectPublicKeyInfoRef::from_der(der).map_err(malformed)?;
    let alg = key_algorithm(&info.algorithm)?;
    let bits = info
        .subject_public_key
        .as_bytes()
        .ok_or_else(|| malformed("public key bit string has unused bits"))?;
    Ok((parse_pkcs1_public(bits)?, alg))
}

pub(crate) fn parse_pkcs1_public(der: &[u8]) -> Result<RsaPublicComponents, KeyFileError> {
    let key = pkcs1::RsaPublicKeyRef::from_der(der)
        .map_err(|e| malformed(field_at_fault(der, &PUBLIC_FIELDS).unwrap_or_else(|| e.to_string())))?;
    let c = RsaPublicComponents {
        n: key.modulus.as_bytes().to_vec(),
        e: key.public_exponent.as_bytes().to_vec(),
    };
    check_public(&c).map_err(|e| match e {
        KeyFileError::InvalidComponent(name) => malformed(format_args!("component {name} is zero")),
        other => other,
    })?;
    Ok(c)
}

fn is_zero(x: &[u8]) -> bool {
    x.iter().all(|&b| b == 0)
}

fn check_public(c: &RsaPublicComponents) -> Result<(), KeyFileError> {
    if is_zero(&c.n) {
        return Err(KeyFileError::InvalidComponent("n"));
    }
    if is_zero(&c.e) {
        return Err(KeyFileError::InvalidComponent("e"));
    }
    Ok(())
}

fn check_private(c: &RsaPrivateComponents) -> Result<(), KeyFileError> {
    check_public(&c.public())?;
    for (name, v) in [
        ("d", &c.d),
        ("p", &c.p),
        ("q", &c.q),
        ("dp", &c.dp),
        ("dq", &c.dq),
        ("qinv", &c.qinv),
    ] {
        if is_zero(v) {
            return Err(KeyFileError::InvalidComponent(name));
        }
    }
    Ok(())
}

fn uint(bytes: &[u8]) -> Result<UintRef<'_>, KeyFileError> {
    UintRef::new(bytes).map_err(|e| KeyFileError::Encode(e.to_string()))
}

fn encode_err(e: impl fmt::Display) -> KeyFileError {
    KeyFileError::Encode(e.to_string())
}

/// PKCS#1 `RSAPrivateKey` DER, in memory that is zeroized.
fn pkcs1_private_der(c: &RsaPrivateComponents) -> Result<SecretDocument, KeyFileError> {
    check_private(c)?;
    let key = pkcs1::RsaPrivateKeyRef {
        modulus: uint(&c.n)?,
        public_exponent: uint(&c.e)?,
        private_exponent: uint(&c.d)?,
        prime1: uint(&c.p)?,
        prime2: uint(&c.q)?,
        exponent1: uint(&c.dp)?,
        exponent2: uint(&c.dq)?,
        coefficient: uint(&c.qinv)?,
        other_prime_infos: None,
    };
    SecretDocument::encode_msg(&key).map_err(encode_err)
}

fn pkcs1_public_der(c: &RsaPublicComponents) -> Result<Document, KeyFileError> {
    check_public(c)?;
    let key = pkcs1::RsaPublicKeyRef {
        modulus: uint(&c.n)?,
        public_exponent: uint(&c.e)?,
    };
    Document::encode_msg(&key).map_err(encode_err)
}

/// `rsaEncryption` with NULL parameters, as OpenSSL writes it.
fn rsa_algorithm() -> AlgorithmIdentifierRef<'static> {
    AlgorithmIdentifierRef {
        oid: RSA_ENCRYPTION,
        parameters: Some(AnyRef::NULL),
    }
}

/// The DER of `RSASSA-PSS-params`, when the key has them.
fn algorithm_params(alg: KeyAlgorithm) -> Result<Option<Vec<u8>>, KeyFileError> {
    match alg {
        KeyAlgorithm::RsaPss(Some(p)) => pss::encode_params(&p).map(Some),
        _ => Ok(None),
    }
}

/// The algorithm identifier of `alg`, its parameters' DER in `params`.
fn algorithm_identifier<'a>(
    alg: KeyAlgorithm,
    params: &'a Option<Vec<u8>>,
) -> Result<AlgorithmIdentifierRef<'a>, KeyFileError> {
    Ok(match alg {
        KeyAlgorithm::Rsa => rsa_algorithm(),
        KeyAlgorithm::RsaPss(_) => AlgorithmIdentifierRef {
            oid: RSASSA_PSS,
            parameters: match params {
                Some(der) => Some(AnyRef::from_der(der).map_err(encode_err)?),
                None => None,
            },
        },
    })
}

/// Write a private key as PKCS#8 (`PRIVATE KEY`, what `openssl genpkey` and
/// `openssl pkey` write) or PKCS#1 (`RSA PRIVATE KEY`, `openssl rsa
/// -traditional`), PEM (LF line endings) or DER. The output is zeroized on
/// drop.
///
/// Errors: a zero or empty component.
///
/// ```
/// use redc::keyfile::*;
/// use zeroize::Zeroizing;
/// let z = |v: &[u8]| Zeroizing::new(v.to_vec());
/// // The toy key n = 61 * 53 = 3233, e = 17, d = 413 (lcm form).
/// let key = RsaPrivateComponents {
///     n: vec![0x0c, 0xa1], e: vec![17], d: z(&[0x01, 0x9d]), p: z(&[61]), q: z(&[53]),
///     dp: z(&[53]), dq: z(&[49]), qinv: z(&[38]),
/// };
/// let pem = encode_private_key(&key, PrivateKeyFormat::Pkcs1, Encoding::Pem).unwrap();
/// assert!(pem.starts_with(b"-----BEGIN RSA PRIVATE KEY-----\n"));
/// let back = decode_private_key(&pem).unwrap();
/// assert_eq!(*back.d, *key.d);
/// ```
pub fn encode_private_key(
    c: &RsaPrivateComponents,
    format: PrivateKeyFormat,
    encoding: Encoding,
) -> Result<Zeroizing<Vec<u8>>, KeyFileError> {
    encode_private_key_info(c, KeyAlgorithm::Rsa, format, encoding)
}

/// [`encode_private_key`] of a key for `alg`: an RSA-PSS key is PKCS#8 with
/// `id-RSASSA-PSS` (and its parameters), as `openssl genpkey -algorithm
/// RSA-PSS` writes it, or, without parameters, PKCS#1 under `RSA-PSS
/// PRIVATE KEY` as `openssl rsa -traditional` writes it.
///
/// Errors: PKCS#1 for an RSA-PSS key with parameters (it has no place for
/// them), a salt length above 255, a zero component.
pub fn encode_private_key_info(
    c: &RsaPrivateComponents,
    alg: KeyAlgorithm,
    format: PrivateKeyFormat,
    encoding: Encoding,
) -> Result<Zeroizing<Vec<u8>>, KeyFileError> {
    let pkcs1 = pkcs1_private_der(c)?;
    let (doc, label) = match format {
        PrivateKeyFormat::Pkcs1 => match alg {
            KeyAlgorithm::Rsa => (pkcs1, LABEL_PKCS1_PRIVATE),
            KeyAlgorithm::RsaPss(None) => (pkcs1, LABEL_PKCS1_PSS_PRIVATE),
            KeyAlgorithm::RsaPss(Some(_)) => {
                return Err(KeyFileError::Encode(
                    "PKCS#1 cannot hold RSA-PSS parameters; use PKCS#8".into(),
                ));
            }
        },
        PrivateKeyFormat::Pkcs8 => {
            let key = OctetStringRef::new(pkcs1.as_bytes()).map_err(encode_err)?;
            let params = algorithm_params(alg)?;
            let info = PrivateKeyInfoRef::new(algorithm_identifier(alg, &params)?, key);
            (
                SecretDocument::encode_msg(&info).map_err(encode_err)?,
                LABEL_PKCS8,
            )
        }
    };
    match encoding {
        Encoding::Der => Ok(doc.to_bytes()),
        Encoding::Pem if label == LABEL_PKCS1_PSS_PRIVATE => {
            // The `der` encoder refuses the hyphen (RFC 7468); OpenSSL writes it.
            let pem = doc
                .to_pem(LABEL_PKCS1_PRIVATE, LineEnding::LF)
                .map_err(encode_err)?;
            Ok(Zeroizing::new(
                pem.replace(LABEL_PKCS1_PRIVATE, LABEL_PKCS1_PSS_PRIVATE)
                    .into_bytes(),
            ))
        }
        Encoding::Pem => {
            let pem = doc.to_pem(label, LineEnding::LF).map_err(encode_err)?;
            Ok(Zeroizing::new(pem.as_bytes().to_vec()))
        }
    }
}

/// Write a public key as SPKI (`PUBLIC KEY`, `openssl pkey -pubout`) or
/// PKCS#1 (`RSA PUBLIC KEY`, `openssl rsa -RSAPublicKey_out`), PEM (LF line
/// endings) or DER.
///
/// Errors: a zero or empty component.
///
/// ```
/// use redc::keyfile::*;
/// let key = RsaPublicComponents { n: vec![0x0c, 0xa1], e: vec![17] };
/// let der = encode_public_key(&key, PublicKeyFormat::Pkcs1, Encoding::Der).unwrap();
/// assert_eq!(der, [0x30, 0x07, 0x02, 0x02, 0x0c, 0xa1, 0x02, 0x01, 0x11]);
/// ```
pub fn encode_public_key(
    c: &RsaPublicComponents,
    format: PublicKeyFormat,
    encoding: Encoding,
) -> Result<Vec<u8>, KeyFileError> {
    encode_public_key_info(c, KeyAlgorithm::Rsa, format, encoding)
}

/// [`encode_public_key`] of a key for `alg`: SPKI keeps an RSA-PSS key's
/// identifier and parameters, as `openssl pkey -pubout` does; PKCS#1 has
/// no place for them and writes the bare numbers.
pub fn encode_public_key_info(
    c: &RsaPublicComponents,
    alg: KeyAlgorithm,
    format: PublicKeyFormat,
    encoding: Encoding,
) -> Result<Vec<u8>, KeyFileError> {
    let pkcs1 = pkcs1_public_der(c)?;
    let params = algorithm_params(alg)?;
    let (doc, label) = match format {
        PublicKeyFormat::Pkcs1 => (pkcs1, LABEL_PKCS1_PUBLIC),
        PublicKeyFormat::Spki => {
            let bits = BitStringRef::from_bytes(pkcs1.as_bytes()).map_err(encode_err)?;
            let info = SubjectPublicKeyInfoRef {
                algorithm: algorithm_identifier(alg, &params)?,
                subject_public_key: bits,
            };
            (Document::encode_msg(&info).map_err(encode_err)?, LABEL_SPKI)
        }
    };
    match encoding {
        Encoding::Der => Ok(doc.into_vec()),
        Encoding::Pem => Ok(doc
            .to_pem(label, LineEnding::LF)
            .map_err(encode_err)?
            .into_bytes()),
    }
}

/// Write a private key encrypted with `pass`: PKCS#8 as
/// `EncryptedPrivateKeyInfo` (PBES2 with `kdf` and `cipher`; PEM label
/// `ENCRYPTED PRIVATE KEY`, or DER), as `openssl pkey -aes256` writes; or
/// PKCS#1 as the legacy encrypted PEM (`Proc-Type: 4,ENCRYPTED`, key from
/// MD5 `EVP_BytesToKey`), as `openssl rsa -traditional -aes128` writes.
/// Salt and IV come from `rng`. The output is zeroized on drop.
///
/// Errors: PKCS#1 in DER (which has no encrypted form), an empty passphrase,
/// a zero component, bad scrypt parameters.
pub fn encode_private_key_encrypted<R: rand_core::TryCryptoRng + ?Sized>(
    c: &RsaPrivateComponents,
    format: PrivateKeyFormat,
    encoding: Encoding,
    pass: &[u8],
    cipher: KeyCipher,
    kdf: KeyKdf,
    rng: &mut R,
) -> Result<Zeroizing<Vec<u8>>, KeyFileError> {
    encode_private_key_encrypted_info(c, KeyAlgorithm::Rsa, format, encoding, pass, cipher, kdf, rng)
}

/// [`encode_private_key_encrypted`] of a key for `alg` (see
/// [`encode_private_key_info`]).
#[allow(clippy::too_many_arguments)]
pub fn encode_private_key_encrypted_info<R: rand_core::TryCryptoRng + ?Sized>(
    c: &RsaPrivateComponents,
    alg: KeyAlgorithm,
    format: PrivateKeyFormat,
    encoding: Encoding,
    pass: &[u8],
    cipher: KeyCipher,
    kdf: KeyKdf,
    rng: &mut R,
) -> Result<Zeroizing<Vec<u8>>, KeyFileError> {
    if pass.is_empty() {
        return Err(KeyFileError::Encode("empty passphrase".into()));
    }
    match format {
        PrivateKeyFormat::Pkcs1 => {
            if encoding == Encoding::Der {
                return Err(KeyFileError::Encode(
                    "a PKCS#1 key has no encrypted DER form; use PKCS#8".into(),
                ));
            }
            let label = match alg {
                KeyAlgorithm::Rsa => LABEL_PKCS1_PRIVATE,
                KeyAlgorithm::RsaPss(None) => LABEL_PKCS1_PSS_PRIVATE,
                KeyAlgorithm::RsaPss(Some(_)) => {
                    return Err(KeyFileError::Encode(
                        "PKCS#1 cannot hold RSA-PSS parameters; use PKCS#8".into(),
                    ));
                }
            };
            let der = pkcs1_private_der(c)?;
            encrypted::encrypt_legacy(der.as_bytes(), label, pass, cipher, rng)
        }
        PrivateKeyFormat::Pkcs8 => {
            let plain = encode_private_key_info(c, alg, PrivateKeyFormat::Pkcs8, Encoding::Der)?;
            let doc = encrypted::encrypt_pkcs8(&plain, pass, cipher, kdf, rng)?;
            match encoding {
                Encoding::Der => Ok(doc.to_bytes()),
                Encoding::Pem => {
                    let pem = doc.to_pem(LABEL_ENCRYPTED, LineEnding::LF).map_err(encode_err)?;
                    Ok(Zeroizing::new(pem.as_bytes().to_vec()))
                }
            }
        }
    }
}
