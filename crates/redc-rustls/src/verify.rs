//! The verifying side: redc's RSA signature verification as webpki
//! [`SignatureVerificationAlgorithm`]s, which rustls's certificate verifier
//! uses both for certificate chains and for handshake signatures
//! (CertificateVerify in TLS 1.3, ServerKeyExchange in TLS 1.2).
//!
//! RSASSA-PKCS1-v1_5 and RSASSA-PSS verification are RFC 8017 8.2.2 and
//! 8.1.2, implemented in `redc::rsa` (schemes.rs). PSS takes exactly the salt
//! length = hash length (the only one TLS allows, RFC 8446 4.2.3, and the
//! only one webpki's *ring* algorithms accept). The public key webpki passes
//! is the `subjectPublicKey` of a certificate: a DER PKCS#1 `RSAPublicKey`,
//! read strictly with RustCrypto's `pkcs1`.
//!
//! [`SUPPORTED_SIG_ALGS`] is the default (*ring*) provider's
//! `WebPkiSupportedAlgorithms` with every RSA algorithm replaced by these,
//! same schemes in the same order, other algorithms (ECDSA, Ed25519) kept.

use crate::sign::Padding;
use crate::{MAX_VERIFY_BITS, MIN_KEY_BITS};
use der::Decode;
use redc::hash::HashAlg;
use redc::padding::SaltLen;
use redc::rsa::RsaPublicKey;
use rustls::SignatureScheme;
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::{AlgorithmIdentifier, InvalidSignature, SignatureVerificationAlgorithm, alg_id};
use std::sync::LazyLock;

/// One RSA signature algorithm verified by redc: `verify_signature(pk, m,
/// s)` is `Ok` iff `pk` is a DER PKCS#1 `RSAPublicKey` of 2048 to 8192 bits
/// and `s` is a valid signature of `m` under it with this padding and hash.
/// Variable time: everything here is public.
///
/// ```
/// use redc::{hash::HashAlg, keyfile::{Encoding, PublicKeyFormat}, rsa::{keygen, os_rng}};
/// use redc_rustls::verify::RSA_PKCS1_SHA256;
/// use rustls::pki_types::SignatureVerificationAlgorithm;
/// let sign = |bits| {
///     let key = keygen::generate(bits, 65537, &mut os_rng()).unwrap();
///     let public = key.public_key().to_key_file(PublicKeyFormat::Pkcs1, Encoding::Der).unwrap();
///     let digest = HashAlg::Sha256.digest(b"m");
///     (public, key.sign_pkcs1v15(&mut os_rng(), HashAlg::Sha256, &digest).unwrap())
/// };
/// let (public, sig) = sign(2048);
/// assert!(RSA_PKCS1_SHA256.verify_signature(&public, b"m", &sig).is_ok());
/// // A valid signature under a 1024-bit key: refused, as webpki does.
/// let (public, sig) = sign(1024);
/// assert!(RSA_PKCS1_SHA256.verify_signature(&public, b"m", &sig).is_err());
/// ```
pub struct RedcRsaVerify {
    name: &'static str,
    padding: Padding,
    hash: HashAlg,
    signature_alg_id: AlgorithmIdentifier,
}

impl core::fmt::Debug for RedcRsaVerify {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "RedcRsaVerify({})", self.name)
    }
}

/// The public key of a certificate: a PKCS#1 `RSAPublicKey`, 2048 to 8192 bits.
fn public_key(der: &[u8]) -> Result<RsaPublicKey, InvalidSignature> {
    let parsed = pkcs1::RsaPublicKeyRef::from_der(der).map_err(|_| InvalidSignature)?;
    let key = RsaPublicKey::new(parsed.modulus.as_bytes(), parsed.public_exponent.as_bytes())
        .map_err(|_| InvalidSignature)?;
    if !(MIN_KEY_BITS..=MAX_VERIFY_BITS).contains(&key.bits()) {
        return Err(InvalidSignature);
    }
    Ok(key)
}

impl SignatureVerificationAlgorithm for RedcRsaVerify {
    fn verify_signature(
        &self,
        public_key: &[u8],
        message: &[u8],
        signature: &[u8],
    ) -> Result<(), InvalidSignature> {
        let key = self::public_key(public_key)?;
        let digest = self.hash.digest(message);
        let result = match self.padding {
            Padding::Pss => key.verify_pss(
                self.hash,
                &digest,
                signature,
                SaltLen::Exact(self.hash.output_len()),
            ),
            Padding::Pkcs1v15 => key.verify_pkcs1v15(self.hash, &digest, signature),
        };
        result.map_err(|_| InvalidSignature)
    }

    fn public_key_alg_id(&self) -> AlgorithmIdentifier {
        alg_id::RSA_ENCRYPTION
    }

    fn signature_alg_id(&self) -> AlgorithmIdentifier {
        self.signature_alg_id
    }
}

// The AlgorithmIdentifier contents of sha{256,384,512}WithRSAEncryption
// without the NULL parameters, which some certificates omit (webpki accepts
// them in its *_ABSENT_PARAMS algorithms).
const SHA256_WITH_RSA_ABSENT_PARAMS: AlgorithmIdentifier =
    AlgorithmIdentifier::from_slice(&[0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b]);
const SHA384_WITH_RSA_ABSENT_PARAMS: AlgorithmIdentifier =
    AlgorithmIdentifier::from_slice(&[0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0c]);
const SHA512_WITH_RSA_ABSENT_PARAMS: AlgorithmIdentifier =
    AlgorithmIdentifier::from_slice(&[0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0d]);

macro_rules! alg {
    ($(#[$doc:meta])* $name:ident, $padding:ident, $hash:ident, $id:expr) => {
        $(#[$doc])*
        pub static $name: RedcRsaVerify = RedcRsaVerify {
            name: stringify!($name),
            padding: Padding::$padding,
            hash: HashAlg::$hash,
            signature_alg_id: $id,
        };
    };
}

alg!(
    /// `rsa_pkcs1_sha256` / `sha256WithRSAEncryption`.
    RSA_PKCS1_SHA256, Pkcs1v15, Sha256, alg_id::RSA_PKCS1_SHA256
);
alg!(
    /// `rsa_pkcs1_sha384` / `sha384WithRSAEncryption`.
    RSA_PKCS1_SHA384, Pkcs1v15, Sha384, alg_id::RSA_PKCS1_SHA384
);
alg!(
    /// `rsa_pkcs1_sha512` / `sha512WithRSAEncryption`.
    RSA_PKCS1_SHA512, Pkcs1v15, Sha512, alg_id::RSA_PKCS1_SHA512
);
alg!(
    /// `sha256WithRSAEncryption` with absent parameters (certificates only).
    RSA_PKCS1_SHA256_ABSENT_PARAMS, Pkcs1v15, Sha256, SHA256_WITH_RSA_ABSENT_PARAMS
);
alg!(
    /// `sha384WithRSAEncryption` with absent parameters (certificates only).
    RSA_PKCS1_SHA384_ABSENT_PARAMS, Pkcs1v15, Sha384, SHA384_WITH_RSA_ABSENT_PARAMS
);
alg!(
    /// `sha512WithRSAEncryption` with absent parameters (certificates only).
    RSA_PKCS1_SHA512_ABSENT_PARAMS, Pkcs1v15, Sha512, SHA512_WITH_RSA_ABSENT_PARAMS
);
alg!(
    /// `rsa_pss_rsae_sha256`: RSASSA-PSS, SHA-256, MGF1-SHA-256, 32-byte salt,
    /// `rsaEncryption` key.
    RSA_PSS_SHA256, Pss, Sha256, alg_id::RSA_PSS_SHA256
);
alg!(
    /// `rsa_pss_rsae_sha384`: RSASSA-PSS, SHA-384, MGF1-SHA-384, 48-byte salt.
    RSA_PSS_SHA384, Pss, Sha384, alg_id::RSA_PSS_SHA384
);
alg!(
    /// `rsa_pss_rsae_sha512`: RSASSA-PSS, SHA-512, MGF1-SHA-512, 64-byte salt.
    RSA_PSS_SHA512, Pss, Sha512, alg_id::RSA_PSS_SHA512
);

/// Every algorithm of this module.
pub static ALL: &[&dyn SignatureVerificationAlgorithm] = &[
    &RSA_PKCS1_SHA256,
    &RSA_PKCS1_SHA384,
    &RSA_PKCS1_SHA512,
    &RSA_PKCS1_SHA256_ABSENT_PARAMS,
    &RSA_PKCS1_SHA384_ABSENT_PARAMS,
    &RSA_PKCS1_SHA512_ABSENT_PARAMS,
    &RSA_PSS_SHA256,
    &RSA_PSS_SHA384,
    &RSA_PSS_SHA512,
];

/// redc's algorithm for each TLS RSA scheme, in rustls's order of
/// preference: a `WebPkiSupportedAlgorithms::mapping` for RSA alone.
pub static RSA_MAPPING: &[(SignatureScheme, &[&dyn SignatureVerificationAlgorithm])] = &[
    (SignatureScheme::RSA_PSS_SHA512, &[&RSA_PSS_SHA512]),
    (SignatureScheme::RSA_PSS_SHA384, &[&RSA_PSS_SHA384]),
    (SignatureScheme::RSA_PSS_SHA256, &[&RSA_PSS_SHA256]),
    (SignatureScheme::RSA_PKCS1_SHA512, &[&RSA_PKCS1_SHA512]),
    (SignatureScheme::RSA_PKCS1_SHA384, &[&RSA_PKCS1_SHA384]),
    (SignatureScheme::RSA_PKCS1_SHA256, &[&RSA_PKCS1_SHA256]),
];

/// redc's algorithms for a TLS RSA scheme; `None` for any other scheme.
///
/// ```
/// use rustls::SignatureScheme;
/// use redc_rustls::verify::for_scheme;
/// assert_eq!(for_scheme(SignatureScheme::RSA_PSS_SHA256).unwrap().len(), 1);
/// assert!(for_scheme(SignatureScheme::ECDSA_NISTP256_SHA256).is_none());
/// ```
pub fn for_scheme(scheme: SignatureScheme) -> Option<&'static [&'static dyn SignatureVerificationAlgorithm]> {
    RSA_MAPPING
        .iter()
        .find(|(s, _)| *s == scheme)
        .map(|(_, algs)| *algs)
}

/// Whether a webpki algorithm verifies RSA signatures (so is replaced here).
fn is_rsa(alg: &dyn SignatureVerificationAlgorithm) -> bool {
    alg.public_key_alg_id() == alg_id::RSA_ENCRYPTION
}

static DEFAULT_ALL_BUT_RSA: LazyLock<Vec<&'static dyn SignatureVerificationAlgorithm>> =
    LazyLock::new(|| {
        let default = rustls::crypto::ring::default_provider().signature_verification_algorithms;
        let mut all: Vec<_> = default.all.iter().copied().filter(|a| !is_rsa(*a)).collect();
        all.extend_from_slice(ALL);
        all
    });

type Mapping = Vec<(
    SignatureScheme,
    &'static [&'static dyn SignatureVerificationAlgorithm],
)>;

static DEFAULT_MAPPING_BUT_RSA: LazyLock<Mapping> = LazyLock::new(|| {
    let default = rustls::crypto::ring::default_provider().signature_verification_algorithms;
    default
        .mapping
        .iter()
        .map(|&(scheme, algs)| (scheme, for_scheme(scheme).unwrap_or(algs)))
        .collect()
});

/// The default provider's algorithms with redc's for every RSA one: use as a
/// [`rustls::crypto::CryptoProvider`]'s `signature_verification_algorithms`
/// (as [`crate::provider_with_redc_verify`] does).
///
/// ```
/// use redc_rustls::{is_redc_algorithm, verify::SUPPORTED_SIG_ALGS};
/// use rustls::SignatureScheme;
/// let ring = rustls::crypto::ring::default_provider().signature_verification_algorithms;
/// // Same schemes, same order, so the peer sees the same signature_algorithms...
/// assert_eq!(SUPPORTED_SIG_ALGS.supported_schemes(), ring.supported_schemes());
/// // ...and every RSA one verified by redc.
/// for (scheme, algs) in SUPPORTED_SIG_ALGS.mapping {
///     let rsa = format!("{scheme:?}").starts_with("RSA_");
///     assert!(algs.iter().all(|a| is_redc_algorithm(*a) == rsa), "{scheme:?}");
/// }
/// ```
pub static SUPPORTED_SIG_ALGS: LazyLock<WebPkiSupportedAlgorithms> =
    LazyLock::new(|| WebPkiSupportedAlgorithms {
        all: &DEFAULT_ALL_BUT_RSA,
        mapping: &DEFAULT_MAPPING_BUT_RSA,
    });
