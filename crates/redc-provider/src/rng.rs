//! The provider's random numbers (PSS salts, blinding factors, OAEP seeds,
//! the implicit-rejection stand-in): OpenSSL's own private DRBG where the
//! process's libcrypto has one ([`crate::libcrypto::rand::openssl_priv_random`]), else
//! the operating system's generator.
//!
//! Why not the system generator always: it costs a `getrandom` system call
//! per signature, where OpenSSL's DRBG runs in user space
//! (docs/PERFORMANCE.md, "Provider: OpenSSL's DRBG rather than
//! `getrandom`", for its share of an nginx handshake). It is also
//! the generator the application configured (`RAND_set_DRBG_type`, FIPS),
//! and OpenSSL reseeds it after `fork`, which matters for pre-forking
//! servers.

use core::convert::Infallible;
use rand_core::{TryCryptoRng, TryRng};

/// A generator over OpenSSL's private DRBG, with the system generator as
/// the fallback. Panics (caught at the C boundary) only when both fail.
#[derive(Clone, Copy, Debug, Default)]
pub struct ProviderRng;

/// Fill `buf` with random bytes: OpenSSL's DRBG, else the system's.
/// False when both failed.
pub fn try_fill(buf: &mut [u8]) -> bool {
    crate::libcrypto::rand::openssl_priv_random(buf) || getrandom::fill(buf).is_ok()
}

/// [`try_fill`], panicking when both generators failed.
pub fn fill(buf: &mut [u8]) {
    assert!(try_fill(buf), "no random number generator answered");
}

impl TryRng for ProviderRng {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        let mut b = [0u8; 4];
        fill(&mut b);
        Ok(u32::from_le_bytes(b))
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        let mut b = [0u8; 8];
        fill(&mut b);
        Ok(u64::from_le_bytes(b))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        fill(dst);
        Ok(())
    }
}

impl TryCryptoRng for ProviderRng {}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::Rng;

    /// Without libcrypto in the test process the fallback serves: bytes
    /// arrive, and two draws of 32 bytes differ (a stuck or unfilled
    /// buffer would repeat).
    #[test]
    fn fills_and_differs() {
        let mut r = ProviderRng;
        let (mut a, mut b) = ([0u8; 32], [0u8; 32]);
        r.fill_bytes(&mut a);
        r.fill_bytes(&mut b);
        assert_ne!(a, b);
        assert_ne!(a, [0u8; 32]);
    }
}
