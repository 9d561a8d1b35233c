//! [`RedcKeyProvider`]: rustls's `KeyProvider` with RSA keys in redc and
//! every other key type handed to a fallback provider (by default *ring*'s).
//! Key files are read by `redc::keyfile` (RustCrypto's `pkcs1`/`pkcs8`).

use crate::sign::RedcSigningKey;
use redc::keyfile::{self, KeyFileError, RsaPrivateComponents};
use redc::rsa::RsaPrivateKey;
use rustls::Error;
use rustls::crypto::KeyProvider;
use rustls::pki_types::PrivateKeyDer;
use rustls::sign::SigningKey;
use std::sync::Arc;
use zeroize::Zeroizing;

#[derive(Clone, Copy)]
enum Fallback {
    Ring,
    Other(&'static dyn KeyProvider),
}

/// Loads RSA private keys (PKCS#1, or PKCS#8 `rsaEncryption`) into redc as
/// [`RedcSigningKey`]s; passes any other key to its fallback provider.
///
/// ```
/// use redc::keyfile::{Encoding, PrivateKeyFormat};
/// use redc::rsa::{keygen, os_rng};
/// use rustls::crypto::KeyProvider;
/// use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
/// let key = keygen::generate(2048, 65537, &mut os_rng()).unwrap();
/// let der = key.to_key_file(PrivateKeyFormat::Pkcs8, Encoding::Der).unwrap();
/// let der = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(der.to_vec()));
/// let signing_key = redc_rustls::KEY_PROVIDER.load_private_key(der).unwrap();
/// assert!(format!("{signing_key:?}").starts_with("RedcSigningKey"));
/// // Garbage is refused, with redc's reason.
/// let junk = PrivateKeyDer::Pkcs1(vec![0x30, 0x03, 0x02, 0x01, 0x00].into());
/// assert!(redc_rustls::KEY_PROVIDER.load_private_key(junk).is_err());
/// ```
#[derive(Clone, Copy)]
pub struct RedcKeyProvider {
    fallback: Fallback,
}

impl RedcKeyProvider {
    /// Non-RSA keys go to *ring*'s key provider (rustls's `ring` default).
    pub const fn with_fallback_to_ring() -> Self {
        RedcKeyProvider {
            fallback: Fallback::Ring,
        }
    }

    /// Non-RSA keys go to `fallback`.
    pub const fn with_fallback(fallback: &'static dyn KeyProvider) -> Self {
        RedcKeyProvider {
            fallback: Fallback::Other(fallback),
        }
    }

    fn fallback(&self) -> &'static dyn KeyProvider {
        match self.fallback {
            Fallback::Ring => crate::ring_key_provider(),
            Fallback::Other(p) => p,
        }
    }
}

impl core::fmt::Debug for RedcKeyProvider {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RedcKeyProvider")
            .field("fallback", self.fallback())
            .finish()
    }
}

fn load_rsa(decoded: Result<RsaPrivateComponents, KeyFileError>) -> Result<Arc<dyn SigningKey>, Error> {
    let components = decoded.map_err(|e| Error::General(format!("redc: cannot read the RSA key: {e}")))?;
    let key = RsaPrivateKey::from_private_components(&components)
        .map_err(|e| Error::General(format!("redc: unusable RSA key: {e}")))?;
    Ok(Arc::new(RedcSigningKey::new(key)?))
}

impl KeyProvider for RedcKeyProvider {
    fn load_private_key(&self, key_der: PrivateKeyDer<'static>) -> Result<Arc<dyn SigningKey>, Error> {
        if !matches!(key_der, PrivateKeyDer::Pkcs1(_) | PrivateKeyDer::Pkcs8(_)) {
            // SEC1 (EC) keys and whatever later versions add.
            return self.fallback().load_private_key(key_der);
        }
        // The algorithm identifier decides: redc's reader says which PKCS#8
        // keys are not rsaEncryption ones, and those (EC, Ed25519,
        // RSA-PSS-restricted, which *ring* refuses in its own words) go to
        // the fallback as they came. The decoded numbers are `Zeroizing`.
        let decoded = keyfile::decode_private_key(key_der.secret_der());
        if matches!(
            decoded,
            Err(KeyFileError::NotRsa(_) | KeyFileError::RsaPssRestricted)
        ) {
            return self.fallback().load_private_key(key_der);
        }
        // Ours: the DER bytes are wiped once read.
        let _wipe = Zeroizing::new(key_der);
        load_rsa(decoded)
    }

    fn fips(&self) -> bool {
        false
    }
}
