//! Errors of the RSA layer.
//!
//! Parsing and public-key problems are described; anything that fails
//! inside a private-key operation is the one opaque [`Error::PrivateOperation`]
//! (or [`Error::Decryption`] for a decryption), so that no caller learns
//! which check failed.

use core::fmt;

/// An RSA error.
///
/// ```
/// use redc::rsa::{Error, RsaPublicKey};
/// let err = RsaPublicKey::new(&[0xff; 64], &[2]).unwrap_err(); // e even
/// assert_eq!(err, Error::InvalidExponent);
/// assert_eq!(err.to_string(), "invalid public exponent: it must be odd, at least 3 and below n");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The key's numbers are not a valid RSA key; the text says why.
    InvalidKey(&'static str),
    /// The key size is outside what redc supports; the text says which sizes are.
    UnsupportedKeySize(usize),
    /// The public exponent is not usable (even, below 3, or not below n).
    InvalidExponent,
    /// The public exponent is longer than [`super::MAX_PUBEXP_BITS`] with a
    /// modulus above [`super::SMALL_MODULUS_BITS`] (as OpenSSL refuses it).
    ExponentTooLarge {
        /// The modulus size in bits.
        modulus_bits: usize,
        /// The public exponent's size in bits.
        exponent_bits: usize,
    },
    /// The input to an RSA primitive does not have the modulus's byte length.
    WrongLength {
        /// What was expected (the modulus size in bytes).
        expected: usize,
        /// What was given.
        got: usize,
    },
    /// The input to an RSA primitive is not below the modulus.
    OutOfRange,
    /// The message is too long for the scheme and key size.
    MessageTooLong,
    /// A signature did not verify.
    Verification,
    /// A decryption failed (opaque).
    Decryption,
    /// A private-key operation failed (opaque: includes the fault check).
    PrivateOperation,
    /// Key generation could not meet its conditions (should not happen in practice).
    KeyGeneration,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidKey(why) => write!(f, "invalid RSA key: {why}"),
            Error::UnsupportedKeySize(bits) => {
                write!(
                    f,
                    "unsupported RSA key size {bits} bits (supported: 512 to 16384 bits)"
                )
            }
            Error::InvalidExponent => {
                f.write_str("invalid public exponent: it must be odd, at least 3 and below n")
            }
            Error::ExponentTooLarge {
                modulus_bits,
                exponent_bits,
            } => write!(
                f,
                "public exponent of {exponent_bits} bits is too large: at most {} bits for moduli above {} bits ({modulus_bits} here)",
                super::MAX_PUBEXP_BITS,
                super::SMALL_MODULUS_BITS
            ),
            Error::WrongLength { expected, got } => {
                write!(f, "input is {got} bytes; the key needs exactly {expected}")
            }
            Error::OutOfRange => f.write_str("input is not below the modulus"),
            Error::MessageTooLong => f.write_str("message too long for this key and scheme"),
            Error::Verification => f.write_str("signature verification failed"),
            Error::Decryption => f.write_str("decryption failed"),
            Error::PrivateOperation => f.write_str("private-key operation failed"),
            Error::KeyGeneration => f.write_str("key generation failed"),
        }
    }
}

impl std::error::Error for Error {}
