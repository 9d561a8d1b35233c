//! Portable radix-2^52 almost-Montgomery arithmetic: the twin of the AVX-512
//! IFMA kernels in `arch::x86_64`, computing bit for bit the same almost-reduced
//! intermediate values, so the vector code can be tested differentially.
//!
//! Numbers are little-endian vectors of 52-bit digits held in `u64`. For a
//! modulus m of `d` digits, R = 2^(52 d), and `d` is chosen so that 4m < R
//! (`d` = 4 ceil((bits + 2) / 208): 20, 32, 40 digits for 1024, 1536, 2048 bits).
//!
//! # Almost-Montgomery multiplication (seed 002, Algorithm 1)
//!
//! `amm(a, b) = (a b + Y m) / R` where Y = sum y_i 2^(52 i) is built digit by
//! digit, `y_i = t_0 k0 mod 2^52` with `k0 = -m^-1 mod 2^52`, so that each
//! step's low digit vanishes. With a, b < 2m and Y < R:
//!
//! ```text
//! amm(a, b) < (4 m^2 + R m) / R = m (4m / R + 1) < 2m      since 4m < R.
//! ```
//!
//! So outputs below 2m are valid inputs again, and no final subtraction is
//! needed until the very end (`from_mont`, which multiplies by 1: then the
//! result is (x + Y m) / R < (2m + R m) / R < m + 1, i.e. at most m, and one
//! conditional subtraction of m makes it fully reduced).
//!
//! Y, and therefore the result, is determined by the exact values of a, b and
//! m alone (y_i depends only on the exact running sum mod 2^52), so any
//! correct digit-serial evaluation, with any lane layout or carry schedule,
//! gives the same digits once normalised: this is what makes the twin exact.
//!
//! Modulus values are public; operands and exponents are secret, and nothing
//! here branches on or indexes memory by them.

use zeroize::Zeroize;

use super::radix;

/// Bits per digit.
pub const DIGIT_BITS: u32 = 52;
/// The digit mask 2^52 - 1.
pub const MASK: u64 = (1 << DIGIT_BITS) - 1;
/// Exponent window width in bits (32-entry table).
pub use super::radix::WINDOW;

/// Digits used for an odd modulus of `bits` bits: the least multiple of 4
/// with 4m < R = 2^(52 d) (the vector kernels work on whole registers of
/// four digits per half: 20, 32, 40 digits for 1024, 1536, 2048 bits).
pub fn digits_for_bits(bits: usize) -> usize {
    (bits + 2).div_ceil(4 * DIGIT_BITS as usize) * 4
}

/// Little-endian u64 limbs to `d` 52-bit digits (bits beyond 52 d dropped).
pub fn to_digits(x: &[u64], d: usize) -> Vec<u64> {
    radix::to_digits::<DIGIT_BITS>(x, d)
}

/// 52-bit digits (each below 2^52) to `limbs` u64 limbs (bits beyond dropped).
pub fn from_digits(x: &[u64], limbs: usize) -> Vec<u64> {
    radix::from_digits::<DIGIT_BITS>(x, limbs)
}

/// `-m^-1 mod 2^52` for odd `m0` (the low digit or limb of m).
pub fn neg_inv52(m0: u64) -> u64 {
    radix::neg_inv::<DIGIT_BITS>(m0)
}

/// An odd modulus in radix 2^52, with the constants of the exponentiation.
/// Its size is public; its value may be secret (a CRT prime): setting it up
/// runs in time that depends on the size only, `Debug` shows the size only,
/// and the digits are wiped on drop.
#[derive(Clone)]
pub struct Modulus52 {
    /// The modulus as trimmed u64 limbs.
    pub limbs: Vec<u64>,
    /// Bit length.
    pub bits: usize,
    /// Digit count d (R = 2^(52 d), 4m < R).
    pub d: usize,
    /// The modulus in d digits.
    pub m: Vec<u64>,
    /// -m^-1 mod 2^52.
    pub k0: u64,
    /// R^2 mod m, d digits, fully reduced.
    pub rr: Vec<u64>,
}

impl Modulus52 {
    /// Prepare an odd modulus m >= 3 (high zero limbs ignored); None if even or too small.
    /// Branches only on the size of m and on the public facts "odd" and ">= 3".
    pub fn new(n: &[u64]) -> Option<Modulus52> {
        Self::with_digit_multiple(n, 4)
    }

    /// As [`Modulus52::new`] with d the least multiple of `multiple` with
    /// 4m < R = 2^(52 d) (the single-modulus kernel fills 8 digits a register).
    pub fn with_digit_multiple(n: &[u64], multiple: usize) -> Option<Modulus52> {
        let len = n.iter().rposition(|&x| x != 0)? + 1;
        let limbs = n[..len].to_vec();
        if limbs[0] & 1 == 0 || (len == 1 && limbs[0] < 3) {
            return None;
        }
        let bits = 64 * len - limbs[len - 1].leading_zeros() as usize;
        let d = (bits + 2).div_ceil(multiple * DIGIT_BITS as usize) * multiple;
        let m = to_digits(&limbs, d);
        let k0 = neg_inv52(m[0]);
        let rr = r_squared(&m, k0, bits);
        Some(Modulus52 {
            limbs,
            bits,
            d,
            m,
            k0,
            rr,
        })
    }
}

impl core::fmt::Debug for Modulus52 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Modulus52")
            .field("bits", &self.bits)
            .field("d", &self.d)
            .finish_non_exhaustive()
    }
}

impl Drop for Modulus52 {
    fn drop(&mut self) {
        self.limbs.zeroize();
        self.m.zeroize();
        self.k0.zeroize();
        self.rr.zeroize();
    }
}

/// The quotient-pipelined form of a modulus m (the dual IFMA kernel's
/// "Quotient pipelining", `arch::x86_64::ifma::pipelined`): M = m s with
/// s = -m^-1 mod 2^104, so that M = -1 mod 2^104. Montgomery reduction mod M
/// then takes y_i = t_0 mod 2^52 (k0 = -M^-1 mod 2^52 = 1); adding y_i M
/// clears position i exactly (its carry out is t_0 >> 52) and otherwise
/// changes only positions i + 2 and above (M + 1 = 0 mod 2^104), so no
/// quotient digit waits for the one just before it.
/// M is a multiple of m, so a run mod M ends with one product mod m.
/// Secret like m (wiped on drop); built in time that depends on m's size only.
#[derive(Clone)]
pub struct Pipelined52 {
    /// M in d digits (m's digit count); digits 0 and 1 are 2^52 - 1.
    pub m: Vec<u64>,
    /// M + 1 in d digits (digits 0 and 1 zero): the rows the kernel reads.
    pub m_plus_one: Vec<u64>,
    /// R^2 mod M, d digits, fully reduced.
    pub rr: Vec<u64>,
}

impl Drop for Pipelined52 {
    fn drop(&mut self) {
        self.m.zeroize();
        self.m_plus_one.zeroize();
        self.rr.zeroize();
    }
}

impl core::fmt::Debug for Pipelined52 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Pipelined52").finish_non_exhaustive()
    }
}

/// Bits the pipelined modulus adds to m: the factor s < 2^104.
pub const PIPELINE_BITS: usize = 104;

impl Modulus52 {
    /// The pipelined form of this modulus, or None when it does not fit m's
    /// digit count with the almost-Montgomery margin (4M < R needs
    /// bits + 104 + 2 <= 52 d: RSA-3072's 1536-bit primes at 32 digits, not
    /// RSA-2048's or RSA-4096's). Branches on the (public) size only.
    pub fn pipelined(&self) -> Option<Pipelined52> {
        let d = self.d;
        if self.bits + PIPELINE_BITS + 2 > DIGIT_BITS as usize * d {
            return None;
        }
        // -m^-1 mod 2^128 by Newton (x = m is right mod 8; each step doubles
        // the correct low bits: 3, 6, ..., 192), then mod 2^104.
        let m0 = self.limbs[0] as u128 | (*self.limbs.get(1).unwrap_or(&0) as u128) << 64;
        let mut x = m0;
        for _ in 0..6 {
            x = x.wrapping_mul(2u128.wrapping_sub(m0.wrapping_mul(x)));
        }
        let s = x.wrapping_neg() & ((1u128 << PIPELINE_BITS) - 1);
        // M = m s, schoolbook over s's two limbs.
        let len = self.limbs.len();
        let mut big = vec![0u64; len + 2];
        for (k, sk) in [s as u64, (s >> 64) as u64].into_iter().enumerate() {
            let mut carry = 0u128;
            for (j, &mj) in self.limbs.iter().enumerate() {
                let t = big[j + k] as u128 + mj as u128 * sk as u128 + carry;
                big[j + k] = t as u64;
                carry = t >> 64;
            }
            for slot in &mut big[len + k..] {
                let t = *slot as u128 + carry;
                *slot = t as u64;
                carry = t >> 64;
            }
        }
        let m = to_digits(&big, d);
        big.zeroize();
        // M + 1: the carry runs through digits 0 and 1 (both 2^52 - 1).
        let mut m_plus_one = m.clone();
        let mut carry = 1u64;
        for dg in m_plus_one.iter_mut() {
            let v = *dg + carry;
            carry = v >> DIGIT_BITS;
            *dg = v & MASK;
        }
        debug_assert!(m[0] == MASK && m[1] == MASK && m_plus_one[..2] == [0, 0]);
        // 2^(bits - 1) < m <= M, where r_squared starts doubling; k0 = 1.
        let rr = r_squared(&m, 1, self.bits);
        Some(Pipelined52 { m, m_plus_one, rr })
    }
}

/// R^2 mod m with R = 2^(52 d) ([`radix::r_squared`]).
fn r_squared(m: &[u64], k0: u64, bits: usize) -> Vec<u64> {
    radix::r_squared::<DIGIT_BITS>(m, k0, bits)
}

/// Almost-Montgomery product `out = (a b + Y m) / R`, normalised digits.
/// Preconditions: `a, b < 2m` as digits below 2^52, all of length d, 4m < R.
/// Postcondition: `out < 2m`. Constant time in a and b.
pub fn amm_mul(out: &mut [u64], a: &[u64], b: &[u64], m: &[u64], k0: u64) {
    radix::amm_mul::<DIGIT_BITS>(out, a, b, m, k0);
}

/// Almost-Montgomery square; the same value as `amm_mul(a, a)`.
pub fn amm_sqr(out: &mut [u64], a: &[u64], m: &[u64], k0: u64) {
    amm_mul(out, a, a, m, k0);
}

pub use super::radix::{gather, window, window_of, windows_for_limbs, windows_of};

/// The almost-reduced Montgomery-domain table `T[k] = base^k R mod m` (< 2m),
/// built in the order the vector code builds it.
pub fn table(md: &Modulus52, base_digits: &[u64]) -> Vec<Vec<u64>> {
    radix::table::<DIGIT_BITS>(&md.m, md.k0, &md.rr, base_digits)
}

/// `base^exp mod m`, fully reduced, as `md.limbs.len()` u64 limbs: fixed
/// 5-bit windows from the top ([`radix::pow`]). `base < m`; exp's length is
/// public, its bits secret.
pub fn pow(md: &Modulus52, base: &[u64], exp: &[u64]) -> Vec<u64> {
    radix::pow::<DIGIT_BITS>(&md.m, md.k0, &md.rr, md.limbs.len(), base, exp)
}

/// `x R^-1 mod m` fully reduced, as u64 limbs, from an almost-reduced x < 2m.
pub fn from_mont(md: &Modulus52, x: &[u64]) -> Vec<u64> {
    radix::from_mont::<DIGIT_BITS>(&md.m, md.k0, md.limbs.len(), x)
}

/// y = y - m when y >= m, for y <= m (digits); constant time.
pub fn final_reduce(md: &Modulus52, y: &mut [u64]) {
    radix::final_reduce::<DIGIT_BITS>(&md.m, y);
}
