//! Decryption without a generator argument, as the `rsa` crate's
//! `RsaPrivateKey::decrypt`: the generator only blinds the private
//! operation, so the operating system's ([`super::os_rng`]) serves. redc
//! always blinds (the `rsa` crate does not when it is given no generator).

use super::{Error, RsaPrivateKey, os_rng};
use crate::hash::HashAlg;
use crate::padding::Plaintext;

impl RsaPrivateKey {
    /// RSAES-OAEP decryption (RFC 8017 7.1.2), label hash and MGF1 both
    /// `hash`, blinded with the OS generator; see
    /// [`RsaPrivateKey::decrypt_oaep_with_rng`] for your own generator. Every
    /// failure is [`Error::Decryption`], except a ciphertext of the wrong
    /// length or not below n (public facts).
    ///
    /// ```
    /// use redc::{hash::HashAlg, rsa::{Error, RsaPrivateKey, os_rng}};
    /// let key = RsaPrivateKey::new(&mut os_rng(), 1024)?;
    /// let ct = key.public_key().encrypt_oaep(&mut os_rng(), HashAlg::Sha256, b"label", b"secret")?;
    /// assert_eq!(key.decrypt_oaep(HashAlg::Sha256, b"label", &ct)?.as_slice(), b"secret");
    /// assert_eq!(key.decrypt_oaep(HashAlg::Sha256, b"other", &ct), Err(Error::Decryption));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn decrypt_oaep(&self, hash: HashAlg, label: &[u8], ciphertext: &[u8]) -> Result<Plaintext, Error> {
        self.decrypt_oaep_with_rng(&mut os_rng(), hash, label, ciphertext)
    }

    /// RSAES-PKCS1-v1_5 decryption with implicit rejection
    /// ([`RsaPrivateKey::decrypt_pkcs1v15_with_rng`]), blinded with the OS
    /// generator: a ciphertext with invalid padding gives a synthetic
    /// message, not an error.
    ///
    /// ```
    /// use redc::rsa::{RsaPrivateKey, os_rng};
    /// let key = RsaPrivateKey::new(&mut os_rng(), 1024)?;
    /// let ct = key.public_key().encrypt_pkcs1v15(&mut os_rng(), b"secret")?;
    /// assert_eq!(key.decrypt_pkcs1v15(&ct)?.as_slice(), b"secret");
    /// # Ok::<(), redc::rsa::Error>(())
    /// ```
    pub fn decrypt_pkcs1v15(&self, ciphertext: &[u8]) -> Result<Plaintext, Error> {
        self.decrypt_pkcs1v15_with_rng(&mut os_rng(), ciphertext)
    }
}
