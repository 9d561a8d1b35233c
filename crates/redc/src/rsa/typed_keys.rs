//! What the `rsa` crate's typed keys (`pkcs1v15::SigningKey`,
//! `pss::SigningKey` and their verifying keys) offer beyond signing:
//! `SigningKey::random`, `Clone`, `Debug`, `signature::Keypair`, the key
//! codecs (`pkcs8`, `spki`) on the typed keys, conversions to and from the
//! plain keys, and batch signing that stops at the first error.

use super::traits::{RsaHash, Signature, SignatureScheme, SigningKey, VerifyingKey};
use super::{Error, RsaPrivateKey, RsaPublicKey};
use core::fmt;
use pkcs8::{EncodePrivateKey, PrivateKeyInfoRef, SecretDocument};
use rand_core::CryptoRng;
use spki::{Document, EncodePublicKey, SubjectPublicKeyInfoRef};

impl<D: RsaHash, S: SignatureScheme> SigningKey<D, S> {
    /// A new key of `bits` bits (e = 65537), as `rsa`'s
    /// `SigningKey::random`; see [`RsaPrivateKey::new`].
    ///
    /// ```
    /// use redc::rsa::{os_rng, pss::SigningKey};
    /// use redc::signature::{Keypair, RandomizedSigner, Verifier};
    /// let signer = SigningKey::<redc::sha2::Sha256>::random(&mut os_rng(), 1024)?;
    /// let sig = signer.sign_with_rng(&mut os_rng(), b"hi");
    /// signer.verifying_key().verify(b"hi", &sig)?;
    /// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    /// ```
    pub fn random<R: CryptoRng + ?Sized>(rng: &mut R, bits: usize) -> Result<Self, Error> {
        Ok(Self::new(RsaPrivateKey::new(rng, bits)?))
    }

    /// Hash and sign every message ([`SigningKey::sign_batch`]), or the
    /// first error: for `?`.
    ///
    /// ```
    /// use redc::rsa::{os_rng, pkcs1v15::SigningKey};
    /// use redc::signature::{Keypair, Verifier};
    /// let signer = SigningKey::<redc::sha2::Sha256>::random(&mut os_rng(), 1024)?;
    /// let msgs: [&[u8]; 3] = [b"a", b"b", b"c"];
    /// let sigs = signer.try_sign_batch(&msgs)?;
    /// signer.verifying_key().verify(b"b", &sigs[1])?;
    /// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    /// ```
    pub fn try_sign_batch(&self, msgs: &[&[u8]]) -> signature::Result<Vec<Signature>> {
        self.sign_batch(msgs).into_iter().collect()
    }
}

impl<D: RsaHash, S: SignatureScheme> Clone for SigningKey<D, S> {
    fn clone(&self) -> Self {
        Self::new(self.key().clone())
    }
}

impl<D: RsaHash, S: SignatureScheme> Clone for VerifyingKey<D, S> {
    fn clone(&self) -> Self {
        Self::new(self.key().clone())
    }
}

/// The key size and the hash; never the private numbers.
impl<D: RsaHash, S: SignatureScheme> fmt::Debug for SigningKey<D, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SigningKey")
            .field("bits", &self.key().bits())
            .field("hash", &D::ALG)
            .finish_non_exhaustive()
    }
}

impl<D: RsaHash, S: SignatureScheme> fmt::Debug for VerifyingKey<D, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VerifyingKey")
            .field("key", self.key())
            .field("hash", &D::ALG)
            .finish()
    }
}

impl<D: RsaHash, S: SignatureScheme> PartialEq for VerifyingKey<D, S> {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl<D: RsaHash, S: SignatureScheme> Eq for VerifyingKey<D, S> {}

/// `signature::Keypair`: the matching verifying key, as
/// [`SigningKey::verifying_key`].
impl<D: RsaHash, S: SignatureScheme> signature::Keypair for SigningKey<D, S> {
    type VerifyingKey = VerifyingKey<D, S>;
    fn verifying_key(&self) -> VerifyingKey<D, S> {
        SigningKey::verifying_key(self)
    }
}

impl<D: RsaHash, S: SignatureScheme> From<RsaPrivateKey> for SigningKey<D, S> {
    fn from(key: RsaPrivateKey) -> Self {
        Self::new(key)
    }
}

impl<D: RsaHash, S: SignatureScheme> From<RsaPublicKey> for VerifyingKey<D, S> {
    fn from(key: RsaPublicKey) -> Self {
        Self::new(key)
    }
}

impl<D: RsaHash, S: SignatureScheme> From<SigningKey<D, S>> for RsaPrivateKey {
    fn from(key: SigningKey<D, S>) -> RsaPrivateKey {
        key.key().clone()
    }
}

impl<D: RsaHash, S: SignatureScheme> From<VerifyingKey<D, S>> for RsaPublicKey {
    fn from(key: VerifyingKey<D, S>) -> RsaPublicKey {
        key.key().clone()
    }
}

impl<D: RsaHash, S: SignatureScheme> AsRef<RsaPrivateKey> for SigningKey<D, S> {
    fn as_ref(&self) -> &RsaPrivateKey {
        self.key()
    }
}

impl<D: RsaHash, S: SignatureScheme> AsRef<RsaPublicKey> for VerifyingKey<D, S> {
    fn as_ref(&self) -> &RsaPublicKey {
        self.key()
    }
}

/// `spki::EncodePublicKey`: the key's SubjectPublicKeyInfo (the hash is
/// not part of it).
impl<D: RsaHash, S: SignatureScheme> EncodePublicKey for VerifyingKey<D, S> {
    fn to_public_key_der(&self) -> spki::Result<Document> {
        self.key().to_public_key_der()
    }
}

/// So that `spki::DecodePublicKey` reads a verifying key.
impl<D: RsaHash, S: SignatureScheme> TryFrom<SubjectPublicKeyInfoRef<'_>> for VerifyingKey<D, S> {
    type Error = spki::Error;
    fn try_from(info: SubjectPublicKeyInfoRef<'_>) -> spki::Result<Self> {
        RsaPublicKey::try_from(info).map(Self::new)
    }
}

/// `pkcs8::EncodePrivateKey`: the key's PKCS#8 (the hash is not part of it).
impl<D: RsaHash, S: SignatureScheme> EncodePrivateKey for SigningKey<D, S> {
    fn to_pkcs8_der(&self) -> pkcs8::Result<SecretDocument> {
        self.key().to_pkcs8_der()
    }
}

/// So that `pkcs8::DecodePrivateKey` reads a signing key.
impl<D: RsaHash, S: SignatureScheme> TryFrom<PrivateKeyInfoRef<'_>> for SigningKey<D, S> {
    type Error = pkcs8::Error;
    fn try_from(info: PrivateKeyInfoRef<'_>) -> pkcs8::Result<Self> {
        RsaPrivateKey::try_from(info).map(Self::new)
    }
}
