//! The RustCrypto traits, so that users of the `rsa` crate can switch with
//! little change: `pkcs8::{DecodePrivateKey, EncodePrivateKey}` and
//! `spki::{DecodePublicKey, EncodePublicKey}` on the key types, and typed
//! signing and verifying keys generic over the hash, implementing
//! `signature::{Signer, RandomizedSigner, Verifier}` with a [`Signature`]
//! that implements `signature::SignatureEncoding`.
//!
//! ```no_run
//! use redc::rsa::{RsaPrivateKey, pkcs1v15::SigningKey};
//! use pkcs8::DecodePrivateKey;
//! use signature::{Signer, Verifier};
//! let key = RsaPrivateKey::read_pkcs8_pem_file("key.pem").unwrap();
//! let signer = SigningKey::<sha2::Sha256>::new(key);
//! let sig = signer.sign(b"message");
//! signer.verifying_key().verify(b"message", &sig).unwrap();
//! ```

use super::{Error, RsaPrivateKey, RsaPublicKey};
use crate::hash::HashAlg;
use crate::keyfile::{Encoding, PrivateKeyFormat, PublicKeyFormat};
use der::{Decode, Encode};
use pkcs8::{EncodePrivateKey, PrivateKeyInfoRef, SecretDocument};
use spki::{Document, EncodePublicKey, SubjectPublicKeyInfoRef};

/// A hash function RSA signatures can use, tied to its [`HashAlg`].
///
/// ```
/// use redc::{hash::HashAlg, rsa::RsaHash};
/// assert_eq!(<sha2::Sha256 as RsaHash>::ALG, HashAlg::Sha256);
/// assert_eq!(<sha1::Sha1 as RsaHash>::ALG.output_len(), 20);
/// ```
pub trait RsaHash {
    /// The algorithm.
    ///
    /// ```
    /// use redc::{hash::HashAlg, rsa::RsaHash};
    /// assert_eq!(<sha2::Sha512 as RsaHash>::ALG, HashAlg::Sha512);
    /// ```
    const ALG: HashAlg;
}

impl RsaHash for sha1::Sha1 {
    const ALG: HashAlg = HashAlg::Sha1;
}
impl RsaHash for sha2::Sha256 {
    const ALG: HashAlg = HashAlg::Sha256;
}
impl RsaHash for sha2::Sha384 {
    const ALG: HashAlg = HashAlg::Sha384;
}
impl RsaHash for sha2::Sha512 {
    const ALG: HashAlg = HashAlg::Sha512;
}

/// An RSA signature: k big-endian bytes.
///
/// ```
/// use redc::rsa::{Signature, keygen, os_rng, pkcs1v15::SigningKey};
/// use signature::{SignatureEncoding, Signer};
/// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
/// let signer = SigningKey::<sha2::Sha256>::new(key);
/// let sig: Signature = signer.sign(b"hi");
/// let bytes: Box<[u8]> = sig.to_bytes();
/// assert_eq!(bytes.len(), 128);
/// assert_eq!(Signature::try_from(&bytes[..]).unwrap(), sig);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature(Box<[u8]>);

impl Signature {
    /// The signature bytes.
    ///
    /// ```
    /// use redc::rsa::{keygen, os_rng, pss::SigningKey};
    /// use signature::Signer;
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let signer = SigningKey::<sha2::Sha256>::new(key);
    /// let sig = signer.sign(b"hi");
    /// assert_eq!(sig.as_bytes().len(), 128);
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

impl AsRef<[u8]> for Signature {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl TryFrom<&[u8]> for Signature {
    type Error = signature::Error;
    fn try_from(bytes: &[u8]) -> Result<Self, Self::Error> {
        if bytes.is_empty() {
            return Err(signature::Error::new());
        }
        Ok(Signature(bytes.into()))
    }
}

impl From<Signature> for Box<[u8]> {
    fn from(sig: Signature) -> Box<[u8]> {
        sig.0
    }
}

impl signature::SignatureEncoding for Signature {
    type Repr = Box<[u8]>;
}

fn sig_error(_: Error) -> signature::Error {
    signature::Error::new()
}

/// RSASSA-PKCS1-v1_5 typed keys.
pub mod pkcs1v15 {
    use super::*;
    use core::marker::PhantomData;

    /// A private key that signs with RSASSA-PKCS1-v1_5 and hash `D`.
    ///
    /// ```
    /// use redc::rsa::{keygen, os_rng, pkcs1v15::SigningKey};
    /// use signature::{Signer, Verifier};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let signer = SigningKey::<sha2::Sha256>::new(key);
    /// let sig = signer.sign(b"hi");
    /// assert!(signer.verifying_key().verify(b"hi", &sig).is_ok());
    /// ```
    pub struct SigningKey<D: RsaHash> {
        key: RsaPrivateKey,
        _hash: PhantomData<D>,
    }

    /// A public key that verifies RSASSA-PKCS1-v1_5 signatures made with `D`.
    ///
    /// ```no_run
    /// use redc::rsa::{RsaPublicKey, pkcs1v15::VerifyingKey};
    /// use spki::DecodePublicKey;
    /// let key = RsaPublicKey::read_public_key_pem_file("pub.pem").unwrap();
    /// let verifier = VerifyingKey::<sha2::Sha256>::new(key);
    /// ```
    pub struct VerifyingKey<D: RsaHash> {
        key: RsaPublicKey,
        _hash: PhantomData<D>,
    }

    impl<D: RsaHash> SigningKey<D> {
        /// Wrap a private key.
        ///
        /// ```
        /// use redc::rsa::{keygen, os_rng, pkcs1v15::SigningKey};
        /// use signature::Signer;
        /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
        /// let signer = SigningKey::<sha2::Sha256>::new(key);
        /// let sig = signer.sign(b"hi");
        /// assert_eq!(sig.as_bytes().len(), 128);
        /// ```
        pub fn new(key: RsaPrivateKey) -> Self {
            SigningKey {
                key,
                _hash: PhantomData,
            }
        }
        /// The matching verifying key.
        ///
        /// ```
        /// use redc::rsa::{keygen, os_rng, pkcs1v15::SigningKey};
        /// use signature::{Signer, Verifier};
        /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
        /// let signer = SigningKey::<sha2::Sha256>::new(key);
        /// let sig = signer.sign(b"hi");
        /// assert!(signer.verifying_key().verify(b"hi", &sig).is_ok());
        /// assert!(signer.verifying_key().verify(b"ho", &sig).is_err());
        /// ```
        pub fn verifying_key(&self) -> VerifyingKey<D> {
            VerifyingKey::new(self.key.to_public_key())
        }
        /// The private key.
        ///
        /// ```
        /// use redc::rsa::{keygen, os_rng, pkcs1v15::SigningKey};
        /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
        /// let signer = SigningKey::<sha2::Sha256>::new(key);
        /// assert_eq!(signer.key().bits(), 1024);
        /// ```
        pub fn key(&self) -> &RsaPrivateKey {
            &self.key
        }
    }

    impl<D: RsaHash> VerifyingKey<D> {
        /// Wrap a public key.
        ///
        /// ```
        /// use redc::rsa::{keygen, os_rng, pkcs1v15::{SigningKey, VerifyingKey}};
        /// use signature::{Signer, Verifier};
        /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
        /// let signer = SigningKey::<sha2::Sha256>::new(key);
        /// let sig = signer.sign(b"hi");
        /// let verifier = VerifyingKey::<sha2::Sha256>::new(signer.key().to_public_key());
        /// assert!(verifier.verify(b"hi", &sig).is_ok());
        /// ```
        pub fn new(key: RsaPublicKey) -> Self {
            VerifyingKey {
                key,
                _hash: PhantomData,
            }
        }
        /// The public key.
        ///
        /// ```
        /// use redc::rsa::{keygen, os_rng, pkcs1v15::SigningKey};
        /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
        /// let signer = SigningKey::<sha2::Sha256>::new(key);
        /// assert_eq!(signer.verifying_key().key(), signer.key().public_key());
        /// ```
        pub fn key(&self) -> &RsaPublicKey {
            &self.key
        }
    }

    impl<D: RsaHash> signature::Signer<Signature> for SigningKey<D> {
        /// Hashes `msg` with `D` and signs; blinding from the OS generator.
        fn try_sign(&self, msg: &[u8]) -> signature::Result<Signature> {
            let digest = D::ALG.digest(msg);
            let sig = self
                .key
                .sign_pkcs1v15(&mut crate::rsa::os_rng(), D::ALG, &digest)
                .map_err(sig_error)?;
            Ok(Signature(sig.into()))
        }
    }

    impl<D: RsaHash> signature::RandomizedSigner<Signature> for SigningKey<D> {
        /// Hashes `msg` with `D` and signs; blinding from `rng`.
        fn try_sign_with_rng<R: rand_core::TryCryptoRng + ?Sized>(
            &self,
            rng: &mut R,
            msg: &[u8],
        ) -> signature::Result<Signature> {
            let digest = D::ALG.digest(msg);
            let mut rng = Fallible::new(rng);
            let sig = self
                .key
                .sign_pkcs1v15(&mut rng, D::ALG, &digest)
                .map_err(sig_error)?;
            if rng.failed() {
                return Err(signature::Error::new());
            }
            Ok(Signature(sig.into()))
        }
    }

    impl<D: RsaHash> signature::Verifier<Signature> for VerifyingKey<D> {
        fn verify(&self, msg: &[u8], sig: &Signature) -> signature::Result<()> {
            self.key
                .verify_pkcs1v15(D::ALG, &D::ALG.digest(msg), sig.as_bytes())
                .map_err(sig_error)
        }
    }
}

/// RSASSA-PSS typed keys (salt length = hash length when signing; any
/// salt length recovered when verifying).
pub mod pss {
    use super::*;
    use crate::padding::SaltLen;
    use core::marker::PhantomData;

    /// A private key that signs with RSASSA-PSS, MGF1 and hash `D`.
    ///
    /// ```
    /// use redc::rsa::{keygen, os_rng, pss::SigningKey};
    /// use signature::{Signer, Verifier};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let signer = SigningKey::<sha2::Sha256>::new(key);
    /// let sig = signer.sign(b"hi");
    /// assert!(signer.verifying_key().verify(b"hi", &sig).is_ok());
    /// ```
    pub struct SigningKey<D: RsaHash> {
        key: RsaPrivateKey,
        _hash: PhantomData<D>,
    }

    /// A public key that verifies RSASSA-PSS signatures made with `D`.
    ///
    /// ```no_run
    /// use redc::rsa::{RsaPublicKey, pss::VerifyingKey};
    /// use spki::DecodePublicKey;
    /// let v = VerifyingKey::<sha2::Sha256>::new(RsaPublicKey::read_public_key_pem_file("pub.pem").unwrap());
    /// ```
    pub struct VerifyingKey<D: RsaHash> {
        key: RsaPublicKey,
        _hash: PhantomData<D>,
    }

    impl<D: RsaHash> SigningKey<D> {
        /// Wrap a private key.
        ///
        /// ```
        /// use redc::rsa::{keygen, os_rng, pss::SigningKey};
        /// use signature::Signer;
        /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
        /// let signer = SigningKey::<sha2::Sha256>::new(key);
        /// let sig = signer.sign(b"hi");
        /// assert_eq!(sig.as_bytes().len(), 128);
        /// ```
        pub fn new(key: RsaPrivateKey) -> Self {
            SigningKey {
                key,
                _hash: PhantomData,
            }
        }
        /// The matching verifying key.
        ///
        /// ```
        /// use redc::rsa::{keygen, os_rng, pss::SigningKey};
        /// use signature::{Signer, Verifier};
        /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
        /// let signer = SigningKey::<sha2::Sha256>::new(key);
        /// let sig = signer.sign(b"hi");
        /// assert!(signer.verifying_key().verify(b"hi", &sig).is_ok());
        /// assert!(signer.verifying_key().verify(b"ho", &sig).is_err());
        /// ```
        pub fn verifying_key(&self) -> VerifyingKey<D> {
            VerifyingKey::new(self.key.to_public_key())
        }
    }

    impl<D: RsaHash> VerifyingKey<D> {
        /// Wrap a public key.
        ///
        /// ```
        /// use redc::rsa::{keygen, os_rng, pss::{SigningKey, VerifyingKey}};
        /// use signature::{RandomizedSigner, Verifier};
        /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
        /// let verifier = VerifyingKey::<sha2::Sha256>::new(key.to_public_key());
        /// let sig = SigningKey::<sha2::Sha256>::new(key).sign_with_rng(&mut os_rng(), b"hi");
        /// assert!(verifier.verify(b"hi", &sig).is_ok());
        /// ```
        pub fn new(key: RsaPublicKey) -> Self {
            VerifyingKey {
                key,
                _hash: PhantomData,
            }
        }
    }

    impl<D: RsaHash> signature::Signer<Signature> for SigningKey<D> {
        /// Salt and blinding from the OS generator.
        fn try_sign(&self, msg: &[u8]) -> signature::Result<Signature> {
            let digest = D::ALG.digest(msg);
            let sig = self
                .key
                .sign_pss(&mut crate::rsa::os_rng(), D::ALG, &digest, None)
                .map_err(sig_error)?;
            Ok(Signature(sig.into()))
        }
    }

    impl<D: RsaHash> signature::RandomizedSigner<Signature> for SigningKey<D> {
        fn try_sign_with_rng<R: rand_core::TryCryptoRng + ?Sized>(
            &self,
            rng: &mut R,
            msg: &[u8],
        ) -> signature::Result<Signature> {
            let digest = D::ALG.digest(msg);
            let mut rng = Fallible::new(rng);
            let sig = self
                .key
                .sign_pss(&mut rng, D::ALG, &digest, None)
                .map_err(sig_error)?;
            if rng.failed() {
                return Err(signature::Error::new());
            }
            Ok(Signature(sig.into()))
        }
    }

    impl<D: RsaHash> signature::Verifier<Signature> for VerifyingKey<D> {
        fn verify(&self, msg: &[u8], sig: &Signature) -> signature::Result<()> {
            self.key
                .verify_pss(D::ALG, &D::ALG.digest(msg), sig.as_bytes(), SaltLen::Auto)
                .map_err(sig_error)
        }
    }
}

/// A fallible generator seen as an infallible one: a failure fills zeros
/// and is remembered, and the caller discards the result.
struct Fallible<'a, R: rand_core::TryCryptoRng + ?Sized>(&'a mut R, bool);

impl<'a, R: rand_core::TryCryptoRng + ?Sized> Fallible<'a, R> {
    fn new(rng: &'a mut R) -> Self {
        Fallible(rng, false)
    }

    fn failed(&self) -> bool {
        self.1
    }
}

impl<R: rand_core::TryCryptoRng + ?Sized> rand_core::TryRng for Fallible<'_, R> {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        let mut b = [0u8; 4];
        self.try_fill_bytes(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        let mut b = [0u8; 8];
        self.try_fill_bytes(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        if self.0.try_fill_bytes(dst).is_err() {
            dst.fill(0);
            self.1 = true;
        }
        Ok(())
    }
}

impl<R: rand_core::TryCryptoRng + ?Sized> rand_core::TryCryptoRng for Fallible<'_, R> {}

impl TryFrom<PrivateKeyInfoRef<'_>> for RsaPrivateKey {
    type Error = pkcs8::Error;
    /// Through [`crate::keyfile`], which checks the algorithm and every number.
    fn try_from(info: PrivateKeyInfoRef<'_>) -> pkcs8::Result<Self> {
        let der = info.to_der()?;
        RsaPrivateKey::from_key_file(&der).map_err(|_| pkcs8::Error::KeyMalformed(pkcs8::KeyError::Invalid))
    }
}

impl EncodePrivateKey for RsaPrivateKey {
    fn to_pkcs8_der(&self) -> pkcs8::Result<SecretDocument> {
        let der = self
            .to_key_file(PrivateKeyFormat::Pkcs8, Encoding::Der)
            .map_err(|_| pkcs8::Error::KeyMalformed(pkcs8::KeyError::Invalid))?;
        Ok(SecretDocument::try_from(der.as_slice())?)
    }
}

impl TryFrom<SubjectPublicKeyInfoRef<'_>> for RsaPublicKey {
    type Error = spki::Error;
    fn try_from(info: SubjectPublicKeyInfoRef<'_>) -> spki::Result<Self> {
        let der = info.to_der()?;
        // Only SPKI reaches here; the key-file decoder checks the RSA OID.
        RsaPublicKey::from_key_file(&der).map_err(|_| spki::Error::KeyMalformed)
    }
}

impl EncodePublicKey for RsaPublicKey {
    fn to_public_key_der(&self) -> spki::Result<Document> {
        let der = self
            .to_key_file(PublicKeyFormat::Spki, Encoding::Der)
            .map_err(|_| spki::Error::KeyMalformed)?;
        Ok(Document::from_der(&der)?)
    }
}
