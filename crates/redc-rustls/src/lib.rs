//! redc-rustls: RSA in rustls through redc (issue 13, item 4).
//!
//! rustls (0.23) leaves every public-key operation to a
//! [`CryptoProvider`]; this crate puts redc behind the RSA parts of one and
//! leaves the rest to rustls's *ring* provider:
//!
//! - [`RedcSigningKey`] is a [`rustls::sign::SigningKey`] over a redc
//!   [`RsaPrivateKey`]. It offers the schemes rustls's own RSA signer offers,
//!   in the same order of preference (PSS before PKCS#1 v1.5, the longest
//!   hash first), so a peer sees no difference: `RSA_PSS_SHA512/384/256`
//!   (RFC 8017 8.1, MGF1 with the same hash, salt length = hash length as
//!   TLS 1.3 requires, RFC 8446 4.2.3) and `RSA_PKCS1_SHA512/384/256`
//!   (RFC 8017 8.2). Its [`rustls::sign::Signer`] hashes the handshake
//!   message and signs through redc's blinded, fault-checked CRT private
//!   operation.
//! - [`RedcKeyProvider`] is a [`KeyProvider`]: PKCS#1 keys and PKCS#8 keys
//!   whose algorithm is `rsaEncryption` are loaded by redc; every other key
//!   (SEC1, PKCS#8 EC or Ed25519, ...) goes, untouched, to the default
//!   provider's key provider.
//! - [`provider`] is *ring*'s default [`CryptoProvider`] with its
//!   `key_provider` replaced by redc's; [`provider_with_redc_verify`] also
//!   replaces its RSA signature verification algorithms.
//! - [`verify`] has redc's [`SignatureVerificationAlgorithm`]s for
//!   `rsa_pkcs1_sha256/384/512` and `rsa_pss_rsae_sha256/384/512` and
//!   [`verify::SUPPORTED_SIG_ALGS`]: the default provider's set with its RSA
//!   entries swapped for redc's, for certificate chains and handshake
//!   signatures alike.
//!
//! # Key policy
//! Like *ring*'s RSA signer and verifier, keys below 2048 bits are refused
//! (redc itself goes down to 512 bits for tests and interoperability; a TLS
//! key that small has no business in a handshake). Verification takes moduli
//! of 2048 to 8192 bits, the range webpki's RSA algorithms accept.
//!
//! # Secrets
//! The private key lives in redc's [`RsaPrivateKey`], whose secret numbers are
//! wiped on drop; the DER bytes a key is loaded from are wiped too, once
//! decoded ([`zeroize::Zeroizing`]), and the decoded components are
//! `Zeroizing` themselves. A key handed on to the default provider is wiped by
//! that provider, as rustls does.
//!
//! ```
//! use std::sync::Arc;
//! let provider = Arc::new(redc_rustls::provider());
//! // Use it in place of rustls's default, e.g.
//! // ServerConfig::builder_with_provider(provider).with_safe_default_protocol_versions()...
//! assert!(!provider.cipher_suites.is_empty());
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use rustls::crypto::{CryptoProvider, KeyProvider};
use rustls::pki_types::SignatureVerificationAlgorithm;

pub use redc::rsa::RsaPrivateKey;

mod keyprovider;
mod sign;
pub mod verify;

pub use keyprovider::RedcKeyProvider;
pub use sign::{RSA_SCHEMES, RedcSigner, RedcSigningKey};

/// The smallest RSA modulus, in bits, that this crate signs or verifies with.
pub const MIN_KEY_BITS: usize = 2048;
/// The largest RSA modulus, in bits, that this crate verifies with (webpki's
/// limit); signing keys may be larger, up to redc's own limit.
pub const MAX_VERIFY_BITS: usize = 8192;

/// The redc key provider that falls back to *ring*'s for non-RSA keys.
pub static KEY_PROVIDER: RedcKeyProvider = RedcKeyProvider::with_fallback_to_ring();

/// *ring*'s default [`CryptoProvider`] with its `key_provider` replaced by
/// redc's [`KEY_PROVIDER`]: RSA server and client-authentication keys sign in
/// redc, everything else is *ring*'s.
///
/// ```
/// let p = redc_rustls::provider();
/// assert!(format!("{:?}", p.key_provider).contains("RedcKeyProvider"));
/// ```
pub fn provider() -> CryptoProvider {
    CryptoProvider {
        key_provider: &KEY_PROVIDER,
        ..rustls::crypto::ring::default_provider()
    }
}

/// [`provider`], with RSA signature verification (certificate chains and
/// handshake signatures) in redc too: [`verify::SUPPORTED_SIG_ALGS`].
///
/// ```
/// let p = redc_rustls::provider_with_redc_verify();
/// assert!(p.signature_verification_algorithms.supported_schemes()
///     .contains(&rustls::SignatureScheme::RSA_PSS_SHA256));
/// ```
pub fn provider_with_redc_verify() -> CryptoProvider {
    CryptoProvider {
        signature_verification_algorithms: *verify::SUPPORTED_SIG_ALGS,
        ..provider()
    }
}

/// Whether `alg` is one of this crate's verification algorithms.
///
/// ```
/// let ring_default = rustls::crypto::ring::default_provider();
/// assert!(ring_default.signature_verification_algorithms.all.iter()
///     .all(|a| !redc_rustls::is_redc_algorithm(*a)));
/// assert!(redc_rustls::verify::ALL.iter().all(|a| redc_rustls::is_redc_algorithm(*a)));
/// ```
pub fn is_redc_algorithm(alg: &dyn SignatureVerificationAlgorithm) -> bool {
    verify::ALL.iter().any(|ours| {
        core::ptr::addr_eq(
            *ours as *const dyn SignatureVerificationAlgorithm,
            alg as *const _,
        )
    })
}

/// The default provider's key provider: where non-RSA keys go.
fn ring_key_provider() -> &'static dyn KeyProvider {
    rustls::crypto::ring::default_provider().key_provider
}
