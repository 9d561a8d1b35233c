//! `RsaPrivateKey::validate`, as in the `rsa` crate.

use super::{Error, RsaPrivateKey};

impl RsaPrivateKey {
    /// Check the key's numbers again: the same checks as
    /// [`RsaPrivateKey::from_components`] (n = p q, p != q, d and the CRT
    /// values consistent with e, p and q), on the key's own numbers, with
    /// the same constant-time code; only the verdict of each check leaks.
    ///
    /// Every key redc builds has passed these checks already (key
    /// generation and every import run them), so this returns `Ok` for any
    /// key that exists; it is here for code written against the `rsa`
    /// crate, where keys from raw components may be unchecked. Primality is
    /// not tested: a composite factor fails the fault check of every private
    /// operation instead.
    ///
    /// ```
    /// use redc::rsa::{RsaPrivateKey, os_rng};
    /// let key = RsaPrivateKey::new(&mut os_rng(), 1024)?;
    /// key.validate()?;
    /// # Ok::<(), redc::rsa::Error>(())
    /// ```
    pub fn validate(&self) -> Result<(), Error> {
        RsaPrivateKey::from_private_components(&self.private_components()).map(drop)
    }
}
