//! [`KeyFileError`], why a key file could not be read or written, and how
//! every message of redc quotes untrusted text: control characters escaped,
//! at most [`QUOTE_MAX_CHARS`] characters.

use core::fmt;

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
