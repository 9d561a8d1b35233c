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
use core::marker::PhantomData;
use der::{Decode, Encode};
use pkcs8::{EncodePrivateKey, PrivateKeyInfoRef, SecretDocument};
use rand_core::CryptoRng;
use spki::{Document, EncodePublicKey, SubjectPublicKeyInfoRef};

/// A hash function RSA signatures can use, tied to its [`HashAlg`]: the
/// bridge between the two ways redc names a hash. Typed keys take the hash
/// as a type (`SigningKey::<Sha256>`, as in the `rsa` and `signature`
/// crates); the byte-level methods take it as a value chosen at run time
/// (`HashAlg::Sha256`, e.g. from a command line). `HashAlg::of::<Sha256>()`
/// turns the first into the second. Implemented for every hash [`HashAlg`]
/// names: SHA-1, SHA-2 (`redc::sha2`) and SHA-3 (`redc::sha3`).
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
impl RsaHash for sha2::Sha224 {
    const ALG: HashAlg = HashAlg::Sha224;
}
impl RsaHash for sha2::Sha512_224 {
    const ALG: HashAlg = HashAlg::Sha512_224;
}
impl RsaHash for sha2::Sha512_256 {
    const ALG: HashAlg = HashAlg::Sha512_256;
}
impl RsaHash for sha3::Sha3_224 {
    const ALG: HashAlg = HashAlg::Sha3_224;
}
impl RsaHash for sha3::Sha3_256 {
    const ALG: HashAlg = HashAlg::Sha3_256;
}
impl RsaHash for sha3::Sha3_384 {
    const ALG: HashAlg = HashAlg::Sha3_384;
}
impl RsaHash for sha3::Sha3_512 {
    const ALG: HashAlg = HashAlg::Sha3_512;
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

/// A signature scheme the typed keys sign and verify with: [`Pkcs1v15`] or
/// [`Pss`].
///
/// ```
/// use redc::{hash::HashAlg, rsa::{Pss, SignatureScheme, keygen, os_rng}};
/// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
/// let digest = HashAlg::Sha256.digest(b"m");
/// let sig = Pss::sign(&key, &mut os_rng(), HashAlg::Sha256, &digest).unwrap();
/// assert!(Pss::verify(key.public_key(), HashAlg::Sha256, &digest, &sig).is_ok());
/// ```
pub trait SignatureScheme {
    /// Sign a message digest made with `hash`.
    fn sign<R: CryptoRng + ?Sized>(
        key: &RsaPrivateKey,
        rng: &mut R,
        hash: HashAlg,
        digest: &[u8],
    ) -> Result<Vec<u8>, Error>;
    /// Verify a signature over a message digest made with `hash`.
    fn verify(key: &RsaPublicKey, hash: HashAlg, digest: &[u8], sig: &[u8]) -> Result<(), Error>;
    /// Sign many digests, in input order, through the batch path where the
    /// scheme has one (default: one at a time).
    fn sign_batch<R: CryptoRng + ?Sized>(
        key: &RsaPrivateKey,
        rng: &mut R,
        hash: HashAlg,
        digests: &[&[u8]],
    ) -> Vec<Result<Vec<u8>, Error>> {
        digests.iter().map(|d| Self::sign(key, rng, hash, d)).collect()
    }
}

/// RSASSA-PKCS1-v1_5 (deterministic).
///
/// ```
/// use redc::{hash::HashAlg, rsa::{Pkcs1v15, SignatureScheme, keygen, os_rng}};
/// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
/// let digest = HashAlg::Sha256.digest(b"m");
/// let a = Pkcs1v15::sign(&key, &mut os_rng(), HashAlg::Sha256, &digest).unwrap();
/// let b = Pkcs1v15::sign(&key, &mut os_rng(), HashAlg::Sha256, &digest).unwrap();
/// assert_eq!(a, b);
/// ```
pub struct Pkcs1v15;

/// RSASSA-PSS with MGF1: salt length = hash length when signing, any salt
/// length recovered when verifying.
///
/// ```
/// use redc::{hash::HashAlg, rsa::{Pss, SignatureScheme, keygen, os_rng}};
/// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
/// let digest = HashAlg::Sha256.digest(b"m");
/// let a = Pss::sign(&key, &mut os_rng(), HashAlg::Sha256, &digest).unwrap();
/// let b = Pss::sign(&key, &mut os_rng(), HashAlg::Sha256, &digest).unwrap();
/// assert_ne!(a, b); // random salts
/// ```
pub struct Pss;

impl SignatureScheme for Pkcs1v15 {
    fn sign<R: CryptoRng + ?Sized>(
        key: &RsaPrivateKey,
        rng: &mut R,
        hash: HashAlg,
        digest: &[u8],
    ) -> Result<Vec<u8>, Error> {
        key.sign_pkcs1v15(rng, hash, digest)
    }
    fn verify(key: &RsaPublicKey, hash: HashAlg, digest: &[u8], sig: &[u8]) -> Result<(), Error> {
        key.verify_pkcs1v15(hash, digest, sig)
    }
    fn sign_batch<R: CryptoRng + ?Sized>(
        key: &RsaPrivateKey,
        rng: &mut R,
        hash: HashAlg,
        digests: &[&[u8]],
    ) -> Vec<Result<Vec<u8>, Error>> {
        key.sign_pkcs1v15_batch(rng, hash, digests)
    }
}

impl SignatureScheme for Pss {
    fn sign<R: CryptoRng + ?Sized>(
        key: &RsaPrivateKey,
        rng: &mut R,
        hash: HashAlg,
        digest: &[u8],
    ) -> Result<Vec<u8>, Error> {
        key.sign_pss(rng, hash, digest, None)
    }
    fn verify(key: &RsaPublicKey, hash: HashAlg, digest: &[u8], sig: &[u8]) -> Result<(), Error> {
        key.verify_pss(hash, digest, sig, crate::padding::SaltLen::Auto)
    }
    fn sign_batch<R: CryptoRng + ?Sized>(
        key: &RsaPrivateKey,
        rng: &mut R,
        hash: HashAlg,
        digests: &[&[u8]],
    ) -> Vec<Result<Vec<u8>, Error>> {
        key.sign_pss_batch(rng, hash, digests, None)
    }
}

/// A private key that signs with scheme `S` and hash `D`; usually named
/// through [`pkcs1v15::SigningKey`] or [`pss::SigningKey`].
///
/// ```
/// use redc::rsa::{keygen, os_rng, pkcs1v15::SigningKey};
/// use signature::{Signer, Verifier};
/// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
/// let signer = SigningKey::<sha2::Sha256>::new(key);
/// let sig = signer.sign(b"hi");
/// assert!(signer.verifying_key().verify(b"hi", &sig).is_ok());
/// ```
pub struct SigningKey<D: RsaHash, S: SignatureScheme> {
    key: RsaPrivateKey,
    _marker: PhantomData<(D, S)>,
}

/// A public key that verifies scheme `S` signatures made with hash `D`;
/// usually named through [`pkcs1v15::VerifyingKey`] or [`pss::VerifyingKey`].
///
/// ```no_run
/// use redc::rsa::{RsaPublicKey, pkcs1v15::VerifyingKey};
/// use spki::DecodePublicKey;
/// let key = RsaPublicKey::read_public_key_pem_file("pub.pem").unwrap();
/// let verifier = VerifyingKey::<sha2::Sha256>::new(key);
/// ```
pub struct VerifyingKey<D: RsaHash, S: SignatureScheme> {
    key: RsaPublicKey,
    _marker: PhantomData<(D, S)>,
}

impl<D: RsaHash, S: SignatureScheme> SigningKey<D, S> {
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
            _marker: PhantomData,
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
    pub fn verifying_key(&self) -> VerifyingKey<D, S> {
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

    /// Hash and sign many messages through the batch path (eight-lane
    /// kernel where the CPU and key size allow); randomness from the OS
    /// generator; one result per message, in input order.
    ///
    /// ```
    /// use redc::rsa::{keygen, os_rng, pkcs1v15::SigningKey};
    /// use signature::{Signer, Verifier};
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let signer = SigningKey::<sha2::Sha256>::new(key);
    /// let msgs: [&[u8]; 5] = [b"a", b"b", b"c", b"d", b"e"];
    /// let sigs = signer.sign_batch(&msgs);
    /// assert_eq!(sigs[3].as_ref().unwrap(), &signer.sign(b"d"));
    /// ```
    pub fn sign_batch(&self, msgs: &[&[u8]]) -> Vec<signature::Result<Signature>> {
        self.sign_batch_with_rng(&mut crate::rsa::os_rng(), msgs)
    }

    /// [`SigningKey::sign_batch`] with randomness (blinding, PSS salts)
    /// from `rng`; if `rng` fails, every result is an error.
    ///
    /// ```
    /// use redc::rsa::{keygen, os_rng, pss::SigningKey};
    /// use signature::Verifier;
    /// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// let signer = SigningKey::<sha2::Sha256>::new(key);
    /// let msgs: [&[u8]; 3] = [b"x", b"y", b"z"];
    /// let sigs = signer.sign_batch_with_rng(&mut os_rng(), &msgs);
    /// assert!(signer.verifying_key().verify(b"y", sigs[1].as_ref().unwrap()).is_ok());
    /// ```
    pub fn sign_batch_with_rng<R: rand_core::TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        msgs: &[&[u8]],
    ) -> Vec<signature::Result<Signature>> {
        let digests: Vec<Vec<u8>> = msgs.iter().map(|m| D::ALG.digest(m)).collect();
        let refs: Vec<&[u8]> = digests.iter().map(|d| &d[..]).collect();
        let mut rng = Fallible::new(rng);
        let sigs = S::sign_batch(&self.key, &mut rng, D::ALG, &refs);
        let failed = rng.failed();
        sigs.into_iter()
            .map(|r| match r {
                Ok(_) if failed => Err(signature::Error::new()),
                Ok(sig) => Ok(Signature(sig.into())),
                Err(e) => Err(sig_error(e)),
            })
            .collect()
    }
}

impl<D: RsaHash, S: SignatureScheme> VerifyingKey<D, S> {
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
            _marker: PhantomData,
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

impl<D: RsaHash, S: SignatureScheme> SigningKey<D, S> {
    /// Sign a digest made with `D` (its length is checked); randomness
    /// (blinding, PSS salt) from `rng`, whose failure is an error.
    pub(super) fn sign_digest_with_rng<R: rand_core::TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        digest: &[u8],
    ) -> signature::Result<Signature> {
        let mut rng = Fallible::new(rng);
        let sig = S::sign(&self.key, &mut rng, D::ALG, digest).map_err(sig_error)?;
        if rng.failed() {
            return Err(signature::Error::new());
        }
        Ok(Signature(sig.into()))
    }
}

impl<D: RsaHash, S: SignatureScheme> VerifyingKey<D, S> {
    /// Verify a signature over a digest made with `D`.
    pub(super) fn verify_digest(&self, digest: &[u8], sig: &Signature) -> signature::Result<()> {
        S::verify(&self.key, D::ALG, digest, sig.as_bytes()).map_err(sig_error)
    }
}

impl<D: RsaHash, S: SignatureScheme> signature::Signer<Signature> for SigningKey<D, S> {
    /// Hashes `msg` with `D` and signs; randomness from the OS generator.
    fn try_sign(&self, msg: &[u8]) -> signature::Result<Signature> {
        self.sign_digest_with_rng(&mut crate::rsa::os_rng(), &D::ALG.digest(msg))
    }
}

impl<D: RsaHash, S: SignatureScheme> signature::RandomizedSigner<Signature> for SigningKey<D, S> {
    /// Hashes `msg` with `D` and signs; randomness (blinding, PSS salt) from `rng`.
    fn try_sign_with_rng<R: rand_core::TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        msg: &[u8],
    ) -> signature::Result<Signature> {
        self.sign_digest_with_rng(rng, &D::ALG.digest(msg))
    }
}

impl<D: RsaHash, S: SignatureScheme> signature::Verifier<Signature> for VerifyingKey<D, S> {
    fn verify(&self, msg: &[u8], sig: &Signature) -> signature::Result<()> {
        self.verify_digest(&D::ALG.digest(msg), sig)
    }
}

/// RSASSA-PKCS1-v1_5 typed keys, as in the `rsa` crate.
pub mod pkcs1v15 {
    /// A private key signing with RSASSA-PKCS1-v1_5 and hash `D`.
    ///
    /// ```
    /// let key = redc::rsa::keygen::generate(1024, 65537, &mut redc::rsa::os_rng()).unwrap();
    /// let signer = redc::rsa::pkcs1v15::SigningKey::<sha2::Sha384>::new(key);
    /// ```
    pub type SigningKey<D> = super::SigningKey<D, super::Pkcs1v15>;
    /// A public key verifying RSASSA-PKCS1-v1_5 signatures made with `D`.
    ///
    /// ```
    /// let key = redc::rsa::keygen::generate(1024, 65537, &mut redc::rsa::os_rng()).unwrap();
    /// let v = redc::rsa::pkcs1v15::VerifyingKey::<sha2::Sha384>::new(key.to_public_key());
    /// ```
    pub type VerifyingKey<D> = super::VerifyingKey<D, super::Pkcs1v15>;
}

/// RSASSA-PSS typed keys (salt length = hash length when signing; any
/// salt length recovered when verifying).
pub mod pss {
    /// A private key signing with RSASSA-PSS, MGF1 and hash `D`.
    ///
    /// ```
    /// let key = redc::rsa::keygen::generate(1024, 65537, &mut redc::rsa::os_rng()).unwrap();
    /// let signer = redc::rsa::pss::SigningKey::<sha2::Sha256>::new(key);
    /// ```
    pub type SigningKey<D> = super::SigningKey<D, super::Pss>;
    /// A public key verifying RSASSA-PSS signatures made with `D`.
    ///
    /// ```
    /// let key = redc::rsa::keygen::generate(1024, 65537, &mut redc::rsa::os_rng()).unwrap();
    /// let v = redc::rsa::pss::VerifyingKey::<sha2::Sha256>::new(key.to_public_key());
    /// ```
    pub type VerifyingKey<D> = super::VerifyingKey<D, super::Pss>;
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
