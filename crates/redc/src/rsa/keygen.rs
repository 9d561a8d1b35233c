//! RSA key generation (FIPS 186-5 appendix A.1.3 in outline, with random
//! probable primes from [`super::prime`]).
//!
//! For a modulus of nlen bits: p of ceil(nlen/2) bits and q of floor(nlen/2)
//! bits, each with its two top bits set (so n has exactly nlen bits and
//! p, q >= sqrt(2) 2^(bits-1)), gcd(p - 1, e) = gcd(q - 1, e) = 1,
//! |p - q| > 2^(nlen/2 - 100); then d = e^-1 mod lcm(p - 1, q - 1),
//! required to exceed 2^(nlen/2), and dP, dQ, qInv. All of it with the
//! constant-time helpers of [`crate::nat`]:
//!
//! ```text
//! g = gcd(p-1, q-1);  L = (p-1)(q-1) / g
//! k = -(L mod e)^-1 mod e;  d = (1 + k L) / e     (exact: 1 + kL = 0 mod e)
//! ```

use super::private::{RsaPrivateKey, Secret};
use super::public::RsaPublicKey;
use super::{Error, prime};
use crate::ct::Mask;
use crate::limb;
use crate::nat;
use rand_core::CryptoRng;
use zeroize::Zeroizing;

/// Smallest modulus [`generate`] makes, in bits.
///
/// ```
/// use redc::rsa::{Error, keygen, os_rng};
/// assert_eq!(keygen::MIN_GENERATE_BITS, 1024);
/// let small = keygen::generate(512, 65537, &mut os_rng());
/// assert_eq!(small.unwrap_err(), Error::UnsupportedKeySize(512));
/// ```
pub const MIN_GENERATE_BITS: usize = 1024;

/// What key generation is doing, for a progress display.
///
/// ```
/// use redc::rsa::{keygen::{self, Progress}, os_rng};
/// let mut stages = Vec::new();
/// keygen::generate_with_progress(1024, 65537, &mut os_rng(), &mut |p| stages.push(p)).unwrap();
/// assert_eq!(stages[0], Progress::FirstPrime);
/// assert_eq!(stages.last(), Some(&Progress::Assembling));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// Searching for the first prime.
    FirstPrime,
    /// Searching for the second prime.
    SecondPrime,
    /// Computing d and the CRT values.
    Assembling,
}

/// A new RSA key of `bits` bits (1024 to 16384) with public exponent `e`
/// (odd, 3 <= e < 2^64; 65537 is the usual choice), from `rng`.
///
/// ```
/// let key = redc::rsa::keygen::generate(1024, 65537, &mut redc::rsa::os_rng()).unwrap();
/// assert_eq!(key.bits(), 1024);
/// assert_eq!(key.public_key().e_limbs(), [65537]);
/// ```
pub fn generate<R: CryptoRng + ?Sized>(bits: usize, e: u64, rng: &mut R) -> Result<RsaPrivateKey, Error> {
    generate_with_progress(bits, e, rng, &mut |_| {})
}

/// [`generate`], reporting each stage to `progress`.
///
/// ```
/// use redc::rsa::{keygen::{self, Progress}, os_rng};
/// let mut primes = 0;
/// let key = keygen::generate_with_progress(1024, 3, &mut os_rng(), &mut |p| {
///     if p != Progress::Assembling {
///         primes += 1;
///     }
/// })
/// .unwrap();
/// assert_eq!(key.public_key().e_limbs(), [3]);
/// assert!(primes >= 2);
/// ```
pub fn generate_with_progress<R: CryptoRng + ?Sized>(
    bits: usize,
    e: u64,
    rng: &mut R,
    progress: &mut dyn FnMut(Progress),
) -> Result<RsaPrivateKey, Error> {
    if !(MIN_GENERATE_BITS..=super::MAX_BITS).contains(&bits) {
        return Err(Error::UnsupportedKeySize(bits));
    }
    if e & 1 == 0 || e < 3 {
        return Err(Error::InvalidExponent);
    }
    crate::scrub::scrubbed_keygen(|| generate_checked(bits, e, rng, progress))
}

/// [`generate_with_progress`] for a checked size and exponent, inside the
/// caller's stack scrub.
fn generate_checked<R: CryptoRng + ?Sized>(
    bits: usize,
    e: u64,
    rng: &mut R,
    progress: &mut dyn FnMut(Progress),
) -> Result<RsaPrivateKey, Error> {
    let (p_bits, q_bits) = (bits.div_ceil(2), bits / 2);
    for _ in 0..64 {
        progress(Progress::FirstPrime);
        let p = prime::random_prime(p_bits, e, rng);
        progress(Progress::SecondPrime);
        let q = prime::random_prime(q_bits, e, rng);
        if !far_apart(&p, &q, bits / 2 - 100) {
            continue; // probability about 2^-99
        }
        progress(Progress::Assembling);
        if let Some(key) = assemble(&p, &q, e, bits)? {
            pairwise_consistency(&key, rng)?;
            return Ok(key);
        }
    }
    Err(Error::KeyGeneration)
}

/// FIPS 186-5 pairwise consistency test: a random x below n must come back
/// from x^d (the blinded, fault-checked CRT primitive) raised to e. Any
/// fault in the arithmetic that built the key (a composite "prime", a wrong
/// qInv) fails here instead of reaching a key file.
fn pairwise_consistency<R: CryptoRng + ?Sized>(key: &RsaPrivateKey, rng: &mut R) -> Result<(), Error> {
    let n = key.public_key().engine().modulus().to_vec();
    let x = super::blinding::random_below(rng, &n);
    let m = key.private_op_limbs(rng, &x).map_err(|_| Error::KeyGeneration)?;
    let back = key.public_key().public_op_limbs(&m);
    if !limb::ct_eq(&back, &x).leak_bool() {
        return Err(Error::KeyGeneration);
    }
    Ok(())
}

/// |p - q| >= 2^bound, constant time in p and q (the verdict is revealed).
fn far_apart(p: &[u64], q: &[u64], bound: usize) -> bool {
    let len = p.len().max(q.len());
    let p = Zeroizing::new(limb::resize(p, len).expect("fits"));
    let q = Zeroizing::new(limb::resize(q, len).expect("fits"));
    let mut d1 = Zeroizing::new(vec![0u64; len]);
    let mut d2 = Zeroizing::new(vec![0u64; len]);
    let borrow = limb::sub(&mut d1, &p, &q);
    limb::sub(&mut d2, &q, &p);
    limb::cond_assign(&mut d1, Mask::from_bit(borrow), &d2);
    any_bit_at_or_above(&d1, bound)
}

/// Whether `x >= 2^bound`: some bit at a position >= bound is set. The
/// positions are public; the bits are read through masks; the verdict is
/// revealed (a failing candidate is discarded).
fn any_bit_at_or_above(x: &[u64], bound: usize) -> bool {
    let mut high = 0u64;
    for (i, &w) in x.iter().enumerate() {
        let lo = 64 * i;
        let keep = if lo >= bound {
            u64::MAX
        } else if lo + 64 <= bound {
            0
        } else {
            u64::MAX << (bound - lo)
        };
        high |= w & keep;
    }
    Mask::is_nonzero(high).leak_bool()
}

/// The key from primes p and q, or None if d <= 2^(nlen/2) (then new primes are drawn).
fn assemble(p: &[u64], q: &[u64], e: u64, bits: usize) -> Result<Option<RsaPrivateKey>, Error> {
    let n = nat::mul(p, q);
    let mut p1 = Zeroizing::new(p.to_vec());
    p1[0] &= !1;
    let mut q1 = Zeroizing::new(q.to_vec());
    q1[0] &= !1;
    let phi = Zeroizing::new(nat::mul(&p1, &q1));
    let g = Zeroizing::new(nat::gcd(&p1, &q1));
    let (lambda, _) = nat::div_rem(&phi, &g);
    let lambda = Zeroizing::new(lambda);
    // d = (1 + k L) / e with k = -(L mod e)^-1 mod e.
    let l_mod_e = nat::rem(&lambda, &[e])[0];
    let inv = nat::inv_mod_word(l_mod_e, e).ok_or(Error::KeyGeneration)?;
    let k = (e - inv) % e; // e public; inv < e
    let mut kl = Zeroizing::new(nat::mul(&lambda, &[k]));
    let mut one = vec![0u64; kl.len()];
    one[0] = 1;
    limb::add_assign(&mut kl, &one);
    let (d_full, rem) = nat::div_rem(&kl, &[e]);
    debug_assert!(limb::ct_is_zero(&rem).leak_bool());
    let d_full = Zeroizing::new(d_full);
    let s_n = limb::trim_vartime(&n).len();
    // d < L < n: the limbs above s_n are zero.
    let d: Secret = Zeroizing::new(limb::resize(&d_full, s_n).map_err(|_| Error::KeyGeneration)?);
    // FIPS 186-5: d > 2^(nlen/2) (checked as d >= 2^(nlen/2 + 1), the gap has probability ~2^-nlen/2).
    if !any_bit_at_or_above(&d, bits / 2 + 1) {
        return Ok(None);
    }
    let dp = Zeroizing::new(nat::rem(&d, &p1));
    let dq = Zeroizing::new(nat::rem(&d, &q1));
    let qinv = super::fermat::inverse_mod_prime(p, q).map_err(|_| Error::KeyGeneration)?;
    let public = RsaPublicKey::from_limbs(&n, &[e])?;
    let crt = super::crt::Crt::new(
        Zeroizing::new(p.to_vec()),
        Zeroizing::new(q.to_vec()),
        dp,
        dq,
        qinv,
    )?;
    let key = RsaPrivateKey::assemble(public, d, crt)?;
    Ok(Some(key))
}

impl RsaPrivateKey {
    /// A new random key of `bits` bits with e = 65537: the `rsa` crate's
    /// `RsaPrivateKey::new(&mut rng, bits)`, here [`generate`] (1024 to
    /// 16384 bits).
    ///
    /// ```
    /// use redc::rsa::{RsaPrivateKey, os_rng};
    /// let key = RsaPrivateKey::new(&mut os_rng(), 1024).unwrap();
    /// assert_eq!((key.bits(), key.public_key().e_limbs()), (1024, &[65537u64][..]));
    /// assert!(RsaPrivateKey::new(&mut os_rng(), 512).is_err());
    /// ```
    pub fn new<R: CryptoRng + ?Sized>(rng: &mut R, bits: usize) -> Result<RsaPrivateKey, Error> {
        generate(bits, 65537, rng)
    }

    /// A new random key with the public exponent `e` (odd, at least 3): the
    /// `rsa` crate's `RsaPrivateKey::new_with_exp`, with `e` as a `u64`.
    ///
    /// ```
    /// use redc::rsa::{RsaPrivateKey, os_rng};
    /// let key = RsaPrivateKey::new_with_exp(&mut os_rng(), 1024, 3).unwrap();
    /// assert_eq!(key.public_key().e_limbs(), &[3u64][..]);
    /// assert!(RsaPrivateKey::new_with_exp(&mut os_rng(), 1024, 4).is_err());
    /// ```
    pub fn new_with_exp<R: CryptoRng + ?Sized>(
        rng: &mut R,
        bits: usize,
        e: u64,
    ) -> Result<RsaPrivateKey, Error> {
        generate(bits, e, rng)
    }
}
