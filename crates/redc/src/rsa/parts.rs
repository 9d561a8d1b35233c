//! The `rsa` crate's view of a key's public numbers: [`PublicKeyParts`]
//! (`n()`, `e()` as [`BigUint`], `size()`), and `RsaPublicKey::from(&key)`.
//!
//! Only public values (n, e) are ever held as a `BigUint`: num-bigint is
//! not constant time, and redc's private arithmetic never uses it.

use super::{RsaPrivateKey, RsaPublicKey};
use num_bigint::BigUint;

/// n and e of a public key as `BigUint`s, built once with the key.
#[derive(Clone, Debug)]
pub(crate) struct BigParts {
    n: BigUint,
    e: BigUint,
}

impl BigParts {
    /// From little-endian `u64` limbs.
    pub(crate) fn new(n: &[u64], e: &[u64]) -> BigParts {
        let big =
            |x: &[u64]| BigUint::from_bytes_le(&x.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<_>>());
        BigParts { n: big(n), e: big(e) }
    }
}

/// The public numbers of a key, named as in the `rsa` crate
/// (`rsa::traits::PublicKeyParts`, 0.9): implemented by [`RsaPublicKey`]
/// and [`RsaPrivateKey`].
///
/// ```
/// use redc::rsa::{BigUint, PublicKeyParts, RsaPublicKey};
/// let key = RsaPublicKey::new(&[0xcf; 64], &[1, 0, 1]).unwrap();
/// assert_eq!(*key.e(), BigUint::from(65537u32));
/// assert_eq!(key.n().to_bytes_be(), [0xcf; 64]);
/// assert_eq!(PublicKeyParts::size(&key), 64); // bytes, as key.size()
/// ```
pub trait PublicKeyParts {
    /// The modulus n.
    fn n(&self) -> &BigUint;
    /// The public exponent e.
    fn e(&self) -> &BigUint;
    /// The modulus size in bytes (k in RFC 8017): a signature's and a
    /// ciphertext's length.
    fn size(&self) -> usize {
        self.n().bits().div_ceil(8) as usize
    }
}

impl PublicKeyParts for RsaPublicKey {
    fn n(&self) -> &BigUint {
        &self.big().n
    }
    fn e(&self) -> &BigUint {
        &self.big().e
    }
    fn size(&self) -> usize {
        RsaPublicKey::size(self)
    }
}

impl PublicKeyParts for RsaPrivateKey {
    fn n(&self) -> &BigUint {
        self.public_key().n()
    }
    fn e(&self) -> &BigUint {
        self.public_key().e()
    }
    fn size(&self) -> usize {
        RsaPrivateKey::size(self)
    }
}

/// The public half, as `rsa`'s `RsaPublicKey::from(&private_key)`; the same
/// as [`RsaPrivateKey::to_public_key`].
///
/// ```
/// use redc::rsa::{RsaPrivateKey, RsaPublicKey, os_rng};
/// let key = RsaPrivateKey::new(&mut os_rng(), 1024).unwrap();
/// assert_eq!(&RsaPublicKey::from(&key), key.public_key());
/// ```
impl From<&RsaPrivateKey> for RsaPublicKey {
    fn from(key: &RsaPrivateKey) -> RsaPublicKey {
        key.to_public_key()
    }
}

/// The public half; the private numbers are dropped (and wiped).
///
/// ```
/// use redc::rsa::{RsaPrivateKey, RsaPublicKey, os_rng};
/// let key = RsaPrivateKey::new(&mut os_rng(), 1024).unwrap();
/// let expected = key.to_public_key();
/// assert_eq!(RsaPublicKey::from(key), expected);
/// ```
impl From<RsaPrivateKey> for RsaPublicKey {
    fn from(key: RsaPrivateKey) -> RsaPublicKey {
        key.to_public_key()
    }
}
