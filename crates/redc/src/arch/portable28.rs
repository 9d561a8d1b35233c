//! Portable radix-2^28 almost-Montgomery arithmetic: the twin of the AVX2
//! kernels in `arch::x86_64::avx2`, computing bit for bit the same values
//! once normalised ([`super::radix`] shows why any correct evaluation
//! agrees), so the vector code can be tested differentially.
//!
//! Why 28 bits: `vpmuludq` multiplies 32 x 32 -> 64 bits per lane, and the
//! AVX2 kernel lets each 64-bit lane collect up to 2 s products of two
//! digits (s digits, one product of the operands and one of the modulus per
//! step) before any carry moves: with digits below 2^28 + 2^9 each product
//! is below 2^56.01 and 2 s of them stay below 2^64 for s <= 114, that is
//! primes of up to 3186 bits. 29-bit digits would overflow at 36 digits.
//!
//! For a modulus m of `bits` bits, s = ceil((bits + 2) / 28) digits and
//! R = 2^(28 s), so 4m < R: 37 digits for 1024-bit primes, 55 for 1536.
//! Modulus values may be secret (CRT primes); only sizes steer the work.

use zeroize::Zeroize;

use super::radix;

/// Bits per digit.
pub const DIGIT_BITS: u32 = 28;
/// The digit mask 2^28 - 1.
pub const MASK: u64 = radix::mask::<DIGIT_BITS>();

/// Digits for an odd modulus of `bits` bits: the least s with 4m < 2^(28 s).
pub fn digits_for_bits(bits: usize) -> usize {
    (bits + 2).div_ceil(DIGIT_BITS as usize)
}

/// Little-endian u64 limbs to `d` 28-bit digits (bits beyond 28 d dropped).
pub fn to_digits(x: &[u64], d: usize) -> Vec<u64> {
    radix::to_digits::<DIGIT_BITS>(x, d)
}

/// 28-bit digits (each below 2^28) to `limbs` u64 limbs (bits beyond dropped).
pub fn from_digits(x: &[u64], limbs: usize) -> Vec<u64> {
    radix::from_digits::<DIGIT_BITS>(x, limbs)
}

/// An odd modulus in radix 2^28 with the exponentiation's constants. Its
/// size is public; its value may be secret: built in time that depends on
/// the size only, `Debug` shows the size only, wiped on drop.
#[derive(Clone)]
pub struct Modulus28 {
    /// The modulus as trimmed u64 limbs.
    pub limbs: Vec<u64>,
    /// Bit length.
    pub bits: usize,
    /// The modulus in s digits (s = `m.len()`, R = 2^(28 s)).
    pub m: Vec<u64>,
    /// -m^-1 mod 2^28.
    pub k0: u64,
    /// R^2 mod m, s digits, fully reduced.
    pub rr: Vec<u64>,
}

impl Modulus28 {
    /// Prepare an odd modulus m >= 3 (high zero limbs ignored); None if even
    /// or too small. Branches only on m's size and the public facts "odd"
    /// and ">= 3".
    pub fn new(n: &[u64]) -> Option<Modulus28> {
        let len = n.iter().rposition(|&x| x != 0)? + 1;
        let limbs = n[..len].to_vec();
        if limbs[0] & 1 == 0 || (len == 1 && limbs[0] < 3) {
            return None;
        }
        let bits = 64 * len - limbs[len - 1].leading_zeros() as usize;
        let m = to_digits(&limbs, digits_for_bits(bits));
        let k0 = radix::neg_inv::<DIGIT_BITS>(m[0]);
        let rr = radix::r_squared::<DIGIT_BITS>(&m, k0, bits);
        Some(Modulus28 {
            limbs,
            bits,
            m,
            k0,
            rr,
        })
    }

    /// The digit count s.
    pub fn digits(&self) -> usize {
        self.m.len()
    }
}

impl core::fmt::Debug for Modulus28 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Modulus28")
            .field("bits", &self.bits)
            .field("digits", &self.m.len())
            .finish_non_exhaustive()
    }
}

impl Drop for Modulus28 {
    fn drop(&mut self) {
        self.limbs.zeroize();
        self.m.zeroize();
        self.k0.zeroize();
        self.rr.zeroize();
    }
}

/// Almost-Montgomery product `out = (a b + Y m) / R` (see [`radix::amm_mul`]).
pub fn amm_mul(out: &mut [u64], a: &[u64], b: &[u64], md: &Modulus28) {
    radix::amm_mul::<DIGIT_BITS>(out, a, b, &md.m, md.k0);
}

/// `base^exp mod m`, fully reduced, as `md.limbs.len()` u64 limbs, in the
/// order of the AVX2 exponentiation ([`radix::pow`]). `base < m`.
pub fn pow(md: &Modulus28, base: &[u64], exp: &[u64]) -> Vec<u64> {
    radix::pow::<DIGIT_BITS>(&md.m, md.k0, &md.rr, md.limbs.len(), base, exp)
}
