//! Errors of the arithmetic layer. Every message is one line a user can act on.

use core::fmt;

use crate::variant::Variant;

/// What went wrong in parsing a number or setting up Montgomery arithmetic.
///
/// ```
/// use redc::{Error, mont::MontContext};
/// let err = MontContext::from_hex("f0").unwrap_err();
/// assert_eq!(err, Error::EvenModulus);
/// assert_eq!(err.to_string(), "the modulus must be odd");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The text is empty or holds a character that is not a hex digit.
    InvalidHex,
    /// A Montgomery modulus must be odd.
    EvenModulus,
    /// A Montgomery modulus must be at least 3.
    ModulusTooSmall,
    /// An operand is not reduced: it is at least the modulus.
    OperandNotReduced,
    /// The modulus breaks the almost-Montgomery bound 4N < R.
    AlmostBound,
    /// A variant name that [`crate::mont::Variant::from_name`] does not know.
    UnknownVariant(String),
    /// The dedicated squaring takes one operand; use `square`.
    SquareOnly,
    /// A byte string holds a value longer than the destination.
    TooLong,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidHex => f.write_str("not a hexadecimal number"),
            Error::EvenModulus => f.write_str("the modulus must be odd"),
            Error::ModulusTooSmall => f.write_str("the modulus must be at least 3"),
            Error::OperandNotReduced => {
                f.write_str("operand is not reduced: it must be less than the modulus")
            }
            Error::AlmostBound => f.write_str(
                "almost-Montgomery needs 4N < R: the modulus's top two bits of its top limb must be 0",
            ),
            Error::UnknownVariant(name) => write!(
                f,
                "unknown variant '{name}' (try one of: {})",
                Variant::ALL
                    .iter()
                    .map(|v| v.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Error::SquareOnly => {
                f.write_str("the sqr and karatsuba-sqr variants square one operand: use square()")
            }
            Error::TooLong => f.write_str("value does not fit in the destination"),
        }
    }
}

impl std::error::Error for Error {}
