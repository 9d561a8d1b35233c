//! The numbers of an RSA key as a key file holds them: big-endian unsigned
//! integers without leading zero bytes, the private ones zeroized on drop,
//! and `Debug` showing the public numbers only. A component read or written
//! is never zero ([`check_public`], [`check_private`]); whether the numbers
//! make a consistent key is the RSA layer's job.

use core::fmt;

use zeroize::Zeroizing;

use super::KeyFileError;

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

fn is_zero(x: &[u8]) -> bool {
    x.iter().all(|&b| b == 0)
}

pub(super) fn check_public(c: &RsaPublicComponents) -> Result<(), KeyFileError> {
    if is_zero(&c.n) {
        return Err(KeyFileError::InvalidComponent("n"));
    }
    if is_zero(&c.e) {
        return Err(KeyFileError::InvalidComponent("e"));
    }
    Ok(())
}

pub(super) fn check_private(c: &RsaPrivateComponents) -> Result<(), KeyFileError> {
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
