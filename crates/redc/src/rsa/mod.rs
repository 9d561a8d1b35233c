//! RSA: keys, the public and private primitives, key generation and the
//! RFC 8017 schemes.
//!
//! - [`RsaPublicKey`]: n and e; the public primitive (variable time: all
//!   public).
//! - [`RsaPrivateKey`]: CRT private primitive, blinded and fault-checked.
//! - [`keygen`]: random primes and key assembly.
//! - [`pkcs1v15`], [`pss`]: typed signing and verifying keys; with
//!   [`PublicKeyParts`] and the RustCrypto traits on every key type, the
//!   `rsa` crate's API ([`crate::migration`]).

mod batch;
mod blinding;
mod crt;
mod decrypt_os;
mod error;
mod fermat;
mod files;
pub mod keygen;
mod parts;
mod pkcs1_codec;
mod prehash;
pub mod prime;
mod private;
mod public;
mod schemes;
mod threads;
mod traits;
mod typed_keys;
mod validate;

/// Little-endian u64 limbs as a num-bigint value: the oracle's view of a
/// value in the RSA modules' unit tests.
#[cfg(test)]
pub(crate) fn big(x: &[u64]) -> num_bigint::BigUint {
    num_bigint::BigUint::from_slice(
        &x.iter()
            .flat_map(|&w| [w as u32, (w >> 32) as u32])
            .collect::<Vec<_>>(),
    )
}

pub use batch::raw_private_many;
pub use error::Error;
pub use files::KeyLoadError;
pub use num_bigint::BigUint;
pub use parts::PublicKeyParts;
pub use private::{MIN_PRIME_BITS, PrivateComponents, RsaPrivateKey};
pub use public::{MAX_BITS, MAX_PUBEXP_BITS, MIN_BITS, RsaPublicKey, SMALL_MODULUS_BITS};
pub use threads::{raw_private_many_threads, thread_count};
pub use traits::{
    Pkcs1v15, Pss, RsaHash, Signature, SignatureScheme, SigningKey, VerifyingKey, pkcs1v15, pss,
};

/// The operating system's random generator as a [`rand_core::CryptoRng`].
///
/// ```
/// use redc::rsa::{keygen, os_rng};
/// let key = keygen::generate(1024, 65537, &mut os_rng()).unwrap();
/// assert_eq!(key.bits(), 1024);
/// ```
pub fn os_rng() -> rand_core::UnwrapErr<getrandom::SysRng> {
    rand_core::UnwrapErr(getrandom::SysRng)
}
