//! The signing side: [`RedcSigningKey`] (a rustls `SigningKey`) and the
//! [`RedcSigner`] it hands rustls for one handshake signature. RSASSA-PSS and
//! RSASSA-PKCS1-v1_5 are RFC 8017 sections 8.1 and 8.2, implemented in
//! `redc::rsa` (schemes.rs) and `redc::padding`; this file only maps TLS
//! signature schemes onto them.

use crate::MIN_KEY_BITS;
use redc::hash::HashAlg;
use redc::keyfile::{Encoding, PublicKeyFormat};
use redc::rsa::{RsaPrivateKey, os_rng};
use rustls::pki_types::SubjectPublicKeyInfoDer;
use rustls::sign::{Signer, SigningKey};
use rustls::{Error, SignatureAlgorithm, SignatureScheme};
use std::sync::Arc;

/// The TLS schemes a [`RedcSigningKey`] can sign with, most preferred first:
/// the same list and order as rustls's own RSA signer.
pub static RSA_SCHEMES: &[SignatureScheme] = &[
    SignatureScheme::RSA_PSS_SHA512,
    SignatureScheme::RSA_PSS_SHA384,
    SignatureScheme::RSA_PSS_SHA256,
    SignatureScheme::RSA_PKCS1_SHA512,
    SignatureScheme::RSA_PKCS1_SHA384,
    SignatureScheme::RSA_PKCS1_SHA256,
];

/// The RSA signature paddings TLS uses (RFC 8017 section 9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Padding {
    /// EMSA-PKCS1-v1_5.
    Pkcs1v15,
    /// EMSA-PSS, MGF1 with the message hash, salt length = hash length.
    Pss,
}

/// Padding and hash of a TLS RSA signature scheme; `None` for any other.
pub(crate) fn scheme_params(scheme: SignatureScheme) -> Option<(Padding, HashAlg)> {
    use Padding::{Pkcs1v15, Pss};
    match scheme {
        SignatureScheme::RSA_PSS_SHA256 => Some((Pss, HashAlg::Sha256)),
        SignatureScheme::RSA_PSS_SHA384 => Some((Pss, HashAlg::Sha384)),
        SignatureScheme::RSA_PSS_SHA512 => Some((Pss, HashAlg::Sha512)),
        SignatureScheme::RSA_PKCS1_SHA256 => Some((Pkcs1v15, HashAlg::Sha256)),
        SignatureScheme::RSA_PKCS1_SHA384 => Some((Pkcs1v15, HashAlg::Sha384)),
        SignatureScheme::RSA_PKCS1_SHA512 => Some((Pkcs1v15, HashAlg::Sha512)),
        _ => None,
    }
}

/// An RSA private key in redc, as a rustls [`SigningKey`].
///
/// ```
/// use redc::rsa::{keygen, os_rng};
/// use redc_rustls::RedcSigningKey;
/// use rustls::{SignatureScheme, sign::SigningKey};
/// let key = RedcSigningKey::new(keygen::generate(2048, 65537, &mut os_rng()).unwrap()).unwrap();
/// // PSS is preferred whenever the peer offers it...
/// let offered = [SignatureScheme::RSA_PKCS1_SHA256, SignatureScheme::RSA_PSS_SHA256];
/// assert_eq!(key.choose_scheme(&offered).unwrap().scheme(), SignatureScheme::RSA_PSS_SHA256);
/// // ...and nothing is chosen when the peer offers no RSA scheme.
/// assert!(key.choose_scheme(&[SignatureScheme::ED25519]).is_none());
/// ```
pub struct RedcSigningKey {
    key: Arc<RsaPrivateKey>,
}

impl RedcSigningKey {
    /// Wrap a redc key; refuses keys below [`MIN_KEY_BITS`].
    ///
    /// ```
    /// use redc::rsa::{keygen, os_rng};
    /// let small = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
    /// assert!(redc_rustls::RedcSigningKey::new(small).is_err());
    /// ```
    pub fn new(key: RsaPrivateKey) -> Result<Self, Error> {
        if key.bits() < MIN_KEY_BITS {
            return Err(Error::General(format!(
                "redc: {}-bit RSA key refused: TLS keys must have at least {MIN_KEY_BITS} bits",
                key.bits()
            )));
        }
        Ok(RedcSigningKey { key: Arc::new(key) })
    }

    /// The redc key.
    pub fn key(&self) -> &RsaPrivateKey {
        &self.key
    }
}

impl core::fmt::Debug for RedcSigningKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RedcSigningKey")
            .field("bits", &self.key.bits())
            .finish_non_exhaustive()
    }
}

impl SigningKey for RedcSigningKey {
    fn choose_scheme(&self, offered: &[SignatureScheme]) -> Option<Box<dyn Signer>> {
        let scheme = *RSA_SCHEMES.iter().find(|s| offered.contains(s))?;
        let (padding, hash) = scheme_params(scheme)?;
        Some(Box::new(RedcSigner {
            key: Arc::clone(&self.key),
            scheme,
            padding,
            hash,
        }))
    }

    fn public_key(&self) -> Option<SubjectPublicKeyInfoDer<'_>> {
        self.key
            .public_key()
            .to_key_file(PublicKeyFormat::Spki, Encoding::Der)
            .ok()
            .map(SubjectPublicKeyInfoDer::from)
    }

    fn algorithm(&self) -> SignatureAlgorithm {
        SignatureAlgorithm::RSA
    }
}

/// One signature with one scheme, through redc.
///
/// ```
/// use redc::{hash::HashAlg, padding::SaltLen, rsa::{keygen, os_rng}};
/// use redc_rustls::RedcSigningKey;
/// use rustls::{SignatureScheme, sign::SigningKey};
/// let key = RedcSigningKey::new(keygen::generate(2048, 65537, &mut os_rng()).unwrap()).unwrap();
/// let signer = key.choose_scheme(&[SignatureScheme::RSA_PSS_SHA384]).unwrap();
/// let sig = signer.sign(b"handshake transcript").unwrap();
/// let digest = HashAlg::Sha384.digest(b"handshake transcript");
/// key.key().public_key().verify_pss(HashAlg::Sha384, &digest, &sig, SaltLen::Exact(48)).unwrap();
/// ```
pub struct RedcSigner {
    key: Arc<RsaPrivateKey>,
    scheme: SignatureScheme,
    padding: Padding,
    hash: HashAlg,
}

impl core::fmt::Debug for RedcSigner {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RedcSigner")
            .field("bits", &self.key.bits())
            .field("scheme", &self.scheme)
            .finish_non_exhaustive()
    }
}

impl Signer for RedcSigner {
    /// RSASSA-PSS or RSASSA-PKCS1-v1_5 signature of `hash(message)` with the
    /// scheme's hash; `key.size()` bytes. The private operation is redc's
    /// blinded CRT one, constant time in the key; the message and the
    /// signature are public.
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, Error> {
        let hash = self.hash;
        let digest = hash.digest(message);
        let mut rng = os_rng();
        let sig = match self.padding {
            // Salt length = hash length: RFC 8446 4.2.3 for TLS 1.3, and what
            // TLS 1.2 peers (ring, OpenSSL's default) expect too.
            Padding::Pss => self
                .key
                .sign_pss(&mut rng, hash, &digest, Some(hash.output_len())),
            Padding::Pkcs1v15 => self.key.sign_pkcs1v15(&mut rng, hash, &digest),
        };
        sig.map_err(|e| Error::General(format!("redc: RSA signing failed: {e}")))
    }

    fn scheme(&self) -> SignatureScheme {
        self.scheme
    }
}
