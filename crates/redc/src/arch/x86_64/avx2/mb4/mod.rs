//! Four independent radix-2^28 almost-Montgomery products at once, one per
//! 64-bit lane of a 256-bit register (digit-major, "multi-buffer"), and the
//! constant-time fixed-window exponentiation on them: the batch kernel of
//! CPUs with AVX2 and without AVX-512 IFMA, where four CRT halves (two
//! signatures, of one key or of several) share every instruction.
//!
//! Papers: Montgomery's REDC digit by digit (Koc, Acar and Kaliski,
//! "Analyzing and Comparing Montgomery Multiplication Algorithms", SOS:
//! the product first, then the reduction), the almost-Montgomery bound
//! (Zhao, Wang, Lu and Dai, "Hierarchical Optimizations for High Speed
//! Implementation of Modular Exponentiation in ASIC", Algorithm 1: inputs
//! below 2m, no final subtraction), and the window method (Shand and
//! Vuillemin, "Fast Implementations of RSA Cryptography", section 4.2).
//!
//! # Layout
//!
//! [`Mb4`] row j holds digit j of the four lanes' operands. No instruction
//! moves data between lanes: four independent computations with no
//! dependency chain across them, so the multiplier, not the latency of one
//! product's quotient chain, bounds the kernel. Each lane has its own
//! modulus (any mix of primes of one digit count d) and its own k0.
//!
//! # Product and square (SOS, four rows a pass)
//!
//! The accumulator holds columns 0..2d + 4 in 64-bit lanes, never carried
//! during the product: `product` adds a_j b_i for four rows i at once;
//! `square` adds a_i (2 a_j) for j > i, four rows at once, and the
//! diagonal a_i^2. `reduce` then takes the quotient digits in order, four
//! rows a pass: q_i = lo28(t_i k0), where t_i is column i with every
//! earlier row's contribution and carry, and adds q_i m_j to column i + j;
//! a last row pass takes d mod 4 rows one by one. Columns d..2d, carried
//! digit by digit, are the result: (a b + Q m) / 2^(28 d), with the same
//! quotient digits as the serial twin, so the same value bit for bit
//! ([`crate::arch::radix::amm_mul`]).
//!
//! Lane bound: digits below 2^28, so a product is below 2^56 and a doubled
//! cross product below 2^57; a column collects at most d products of the
//! operands (or d/2 + 1 of the square) and d of the modulus, plus a carry
//! below 2^37: below 2 d 2^56 + 2^37 < 2^64 for d <= [`MAX_D`] = 80.
//!
//! Almost-Montgomery: a, b < 2m and 4m < R = 2^(28 d) give a result below
//! 2m, a valid input again (per lane).
//!
//! # Constant time
//!
//! Every lane runs the same instructions; loops run over d (public) only.
//! The table read (`pow::gather`) reads every entry for every lane and
//! keeps one by masks. Secrets: every lane's operands, modulus, k0 and
//! exponent bits. Public: d and the exponents' length.
//!
//! # Files
//!
//! Here: the layout ([`Mb4`], [`Mb4Mod`]) and the token's entries.
//! `kernels`: the product, the square and the reduction. `pow`: the table
//! read and the exponentiation.

use zeroize::Zeroize;

use crate::arch::portable28::{self, Modulus28};
use crate::arch::x86_64::cpu::Avx2;

mod kernels;
mod pow;

pub use kernels::Scratch;

/// Lanes per register: four operations.
pub const LANES: usize = 4;

/// The largest digit count: 2238-bit moduli (RSA-4096's primes take 74).
pub const MAX_D: usize = 80;

/// The least digit count (a reduction pass reads eight columns ahead).
pub const MIN_D: usize = 8;

/// Zero rows kept above the d digits of every operand: the four-row passes
/// read up to three rows past the top digit.
const PAD: usize = 4;

/// One register's worth: digit j of the four lanes.
#[repr(C, align(32))]
#[derive(Clone, Copy, Default)]
pub struct Quad(pub [u64; 4]);

/// Four operands of d digits: `rows[j].0[l]` is digit j of lane l; the
/// PAD rows above d are zero. Secret; wiped on drop, `Debug` shows d only.
#[derive(Clone)]
pub struct Mb4 {
    d: usize,
    rows: Vec<Quad>,
}

impl core::fmt::Debug for Mb4 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Mb4")
            .field("digits", &self.d)
            .finish_non_exhaustive()
    }
}

impl Mb4 {
    /// All zero, d digits (MIN_D <= d <= MAX_D).
    pub fn zero(d: usize) -> Mb4 {
        assert!(
            (MIN_D..=MAX_D).contains(&d),
            "four-lane digit count {d} out of range"
        );
        Mb4 {
            d,
            rows: vec![Quad::default(); d + PAD],
        }
    }

    /// Lane l gets the digits `lanes[l]` (at most d each, below 2^28; the
    /// rest zero).
    pub fn from_lanes(d: usize, lanes: [&[u64]; LANES]) -> Mb4 {
        let mut out = Mb4::zero(d);
        for (l, x) in lanes.iter().enumerate() {
            assert!(x.len() <= d, "more digits than the operand holds");
            for (j, &v) in x.iter().enumerate() {
                out.rows[j].0[l] = v;
            }
        }
        out
    }

    /// Four numbers in u64 limbs as d-digit lanes; the digit copies are wiped.
    pub fn from_limbs(d: usize, lanes: [&[u64]; LANES]) -> Mb4 {
        let mut digits = lanes.map(|x| portable28::to_digits(x, d));
        let out = Mb4::from_lanes(d, digits.each_ref().map(|v| &v[..]));
        for v in digits.iter_mut() {
            v.zeroize();
        }
        out
    }

    /// Lane l's d digits.
    pub fn lane(&self, l: usize) -> Vec<u64> {
        self.rows[..self.d].iter().map(|q| q.0[l]).collect()
    }

    /// The digit count d.
    pub fn digits(&self) -> usize {
        self.d
    }

    /// The one value in every lane.
    fn one(d: usize) -> Mb4 {
        let mut x = Mb4::zero(d);
        x.rows[0] = Quad([1; 4]);
        x
    }
}

impl Zeroize for Mb4 {
    fn zeroize(&mut self) {
        for q in self.rows.iter_mut() {
            q.0.zeroize();
        }
    }
}

impl Drop for Mb4 {
    fn drop(&mut self) {
        self.zeroize();
    }
}

/// Four moduli of one digit count d, one per lane, with k0 = -m^-1 mod
/// 2^28 and R^2 mod m per lane (R = 2^(28 d)). Secret (CRT primes); wiped
/// on drop.
pub struct Mb4Mod {
    m: Mb4,
    k0: Quad,
    rr: Mb4,
}

impl core::fmt::Debug for Mb4Mod {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Mb4Mod")
            .field("digits", &self.m.d)
            .finish_non_exhaustive()
    }
}

impl Mb4Mod {
    /// The lanes' moduli, or None when their digit counts differ or fall
    /// outside MIN_D..=MAX_D. Only digit counts (public) choose.
    pub fn new(moduli: [&Modulus28; LANES]) -> Option<Mb4Mod> {
        let d = moduli[0].digits();
        if moduli.iter().any(|m| m.digits() != d) || !(MIN_D..=MAX_D).contains(&d) {
            return None;
        }
        Some(Mb4Mod {
            m: Mb4::from_lanes(d, moduli.map(|m| &m.m[..])),
            k0: Quad(moduli.map(|m| m.k0)),
            rr: Mb4::from_lanes(d, moduli.map(|m| &m.rr[..])),
        })
    }

    /// The digit count d.
    pub fn digits(&self) -> usize {
        self.m.d
    }

    /// R^2 mod m per lane.
    pub fn rr(&self) -> &Mb4 {
        &self.rr
    }
}

impl Drop for Mb4Mod {
    fn drop(&mut self) {
        self.k0.0.zeroize();
    }
}

impl Avx2 {
    /// `out = amm(a, b)` in every lane: below 2m_l for a, b below 2m_l.
    #[inline(always)]
    pub fn mb4_amm(self, out: &mut Mb4, a: &Mb4, b: &Mb4, m: &Mb4Mod, sc: &mut Scratch) {
        // SAFETY: the token proves the CPU has AVX2 and the mask allows it.
        unsafe { kernels::amm(out, a, b, m, sc) }
    }

    /// `out = amm(a, a)` in every lane, by the dedicated square.
    #[inline(always)]
    pub fn mb4_sqr(self, out: &mut Mb4, a: &Mb4, m: &Mb4Mod, sc: &mut Scratch) {
        // SAFETY: the token proves the CPU has AVX2 and the mask allows it.
        unsafe { kernels::sqr(out, a, m, sc) }
    }

    /// `(base_l f_l)^exp_l` per lane (f_l = 1 without `factor`), out of the
    /// Montgomery domain, below 2 m_l: the fixed-window exponentiation
    /// (`pow::pow`). Bases and factors below their moduli; the exponents
    /// of one limb count (public), their bits secret.
    #[inline(always)]
    pub fn mb4_pow(self, m: &Mb4Mod, base: &Mb4, factor: Option<&Mb4>, exps: &[&[u64]; LANES]) -> Mb4 {
        // SAFETY: the token proves the CPU has AVX2 and the mask allows it.
        unsafe { pow::pow(m, base, factor, exps) }
    }
}
