//! The `signature` crate's hazmat traits on the typed keys:
//! `PrehashSigner`, `RandomizedPrehashSigner` and `PrehashVerifier`, for a
//! digest computed elsewhere (streamed from a file, from another party).
//! The digest must be the typed key's hash's output length; it is signed as
//! that hash's digest.
//!
//! ```
//! use redc::rsa::{os_rng, pkcs1v15::SigningKey};
//! use redc::signature::{Keypair, Signer, hazmat::{PrehashSigner, PrehashVerifier}};
//! use redc::sha2::{Digest, Sha256};
//! let signer = SigningKey::<Sha256>::random(&mut os_rng(), 1024)?;
//! let digest = Sha256::digest(b"message");
//! let sig = signer.sign_prehash(&digest)?;
//! assert_eq!(sig, signer.sign(b"message")); // PKCS#1 v1.5 is deterministic
//! signer.verifying_key().verify_prehash(&digest, &sig)?;
//! assert!(signer.sign_prehash(&digest[..31]).is_err()); // not a SHA-256 digest
//! # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
//! ```

use super::traits::{RsaHash, Signature, SignatureScheme, SigningKey, VerifyingKey};
use signature::hazmat::{PrehashSigner, PrehashVerifier, RandomizedPrehashSigner};

impl<D: RsaHash, S: SignatureScheme> PrehashSigner<Signature> for SigningKey<D, S> {
    /// Signs a `D` digest; randomness (blinding, PSS salt) from the OS generator.
    fn sign_prehash(&self, prehash: &[u8]) -> signature::Result<Signature> {
        self.sign_digest_with_rng(&mut super::os_rng(), prehash)
    }
}

impl<D: RsaHash, S: SignatureScheme> RandomizedPrehashSigner<Signature> for SigningKey<D, S> {
    /// Signs a `D` digest; randomness (blinding, PSS salt) from `rng`.
    fn sign_prehash_with_rng<R: rand_core::TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        prehash: &[u8],
    ) -> signature::Result<Signature> {
        self.sign_digest_with_rng(rng, prehash)
    }
}

impl<D: RsaHash, S: SignatureScheme> PrehashVerifier<Signature> for VerifyingKey<D, S> {
    fn verify_prehash(&self, prehash: &[u8], signature: &Signature) -> signature::Result<()> {
        self.verify_digest(prehash, signature)
    }
}
