//! Independent radix-2^28 almost-Montgomery products, one per 64-bit lane of
//! a vector register (digit-major, "multi-buffer"), and the constant-time
//! fixed-window exponentiation on them: the batch kernel of CPUs without
//! AVX-512 IFMA. Four lanes in a 256-bit register where AVX2 is the family
//! (`Mb4`: two signatures' CRT halves a run), eight in a 512-bit register
//! where AVX-512F is present too (`Mb8z`: four signatures a run), the
//! same code for both widths ([`Vector`]).
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
//! [`Mb`] row j holds digit j of every lane's operand. No instruction moves
//! data between lanes: independent computations with no dependency chain
//! across them, so the multiplier, not the latency of one product's
//! quotient chain, bounds the kernel. Each lane has its own modulus (any
//! mix of primes of one digit count d) and its own k0.
//!
//! # Product and square (SOS, four rows a pass)
//!
//! The accumulator holds columns 0..2d + 4 in 64-bit lanes, never carried
//! during the product: `product` adds a_j b_i for four rows i at once;
//! `square` adds a_i (2 a_j) for j > i, four rows at once, and the
//! diagonal a_i^2. `reduce` then takes the quotient digits in order: the
//! first d mod 4 rows one by one, then four rows a pass, q_i = lo28(t_i k0)
//! where t_i is column i with every earlier row's contribution and carry,
//! adding q_i m_j to column i + j. Columns d..2d, carried digit by digit,
//! are the result: (a b + Q m) / 2^(28 d), with the same quotient digits
//! as the serial twin, so the same value bit for bit
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
//! exponent bits. Public: d, the lane count and the exponents' length.
//!
//! # Files
//!
//! Here: the layout ([`Mb`], [`MbMod`]) and the tokens' entries.
//! `widths`: the register widths ([`Vector`], the rows, the per-lane
//! operations). `kernels`: the product, the square and the reduction.
//! `pow`: the table read and the exponentiation. `instances`: each width's
//! kernels, compiled with its feature.

use core::arch::x86_64::{__m256i, __m512i};

use zeroize::Zeroize;

use crate::arch::portable28::{self, Modulus28};
use crate::arch::x86_64::cpu::{Avx2, Avx512};

mod instances;
mod kernels;
mod pow;
mod widths;

pub use widths::{Oct, Quad, Vector};

/// The largest digit count: 2238-bit moduli (RSA-4096's primes take 74).
pub const MAX_D: usize = 80;

/// The least digit count (a reduction pass reads eight columns ahead).
pub const MIN_D: usize = 8;

/// Zero rows kept above the d digits of every operand: the four-row passes
/// read up to three rows past the top digit.
const PAD: usize = 4;

/// Four lanes in 256-bit registers (AVX2).
pub type Mb4 = Mb<__m256i>;
/// The moduli of [`Mb4`].
pub type Mb4Mod = MbMod<__m256i>;
/// Eight lanes in 512-bit registers (AVX-512F).
pub type Mb8z = Mb<__m512i>;
/// The moduli of [`Mb8z`].
pub type Mb8zMod = MbMod<__m512i>;

/// `V::LANES` operands of d digits: `rows[j]` holds digit j of every lane;
/// the PAD rows above d are zero. Secret; wiped on drop, `Debug` shows d
/// only.
#[derive(Clone)]
pub struct Mb<V: Vector> {
    d: usize,
    rows: Vec<V::Row>,
}

impl<V: Vector> core::fmt::Debug for Mb<V> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Mb")
            .field("lanes", &V::LANES)
            .field("digits", &self.d)
            .finish_non_exhaustive()
    }
}

impl<V: Vector> Mb<V> {
    /// All zero, d digits (MIN_D <= d <= MAX_D).
    pub fn zero(d: usize) -> Self {
        assert!((MIN_D..=MAX_D).contains(&d), "lane digit count {d} out of range");
        Mb {
            d,
            rows: vec![V::Row::default(); d + PAD],
        }
    }

    /// Lane l gets the digits `lanes[l]` (at most d each, below 2^28; the
    /// rest zero). `lanes` has one entry per lane.
    pub fn from_lanes(d: usize, lanes: &[&[u64]]) -> Self {
        assert_eq!(lanes.len(), V::LANES, "one operand per lane");
        let mut out = Self::zero(d);
        for (l, x) in lanes.iter().enumerate() {
            assert!(x.len() <= d, "more digits than the operand holds");
            for (j, &v) in x.iter().enumerate() {
                out.rows[j].as_mut()[l] = v;
            }
        }
        out
    }

    /// One number per lane in u64 limbs, as d digits each; the digit copies
    /// are wiped.
    pub fn from_limbs(d: usize, lanes: &[&[u64]]) -> Self {
        let mut digits: Vec<Vec<u64>> = lanes.iter().map(|x| portable28::to_digits(x, d)).collect();
        let refs: Vec<&[u64]> = digits.iter().map(|v| &v[..]).collect();
        let out = Self::from_lanes(d, &refs);
        for v in digits.iter_mut() {
            v.zeroize();
        }
        out
    }

    /// Lane l's d digits.
    pub fn lane(&self, l: usize) -> Vec<u64> {
        self.rows[..self.d].iter().map(|q| q.as_ref()[l]).collect()
    }

    /// The digit count d.
    pub fn digits(&self) -> usize {
        self.d
    }

    /// The value one in every lane.
    fn one(d: usize) -> Self {
        let mut x = Self::zero(d);
        x.rows[0].as_mut().fill(1);
        x
    }
}

impl<V: Vector> Zeroize for Mb<V> {
    fn zeroize(&mut self) {
        for q in self.rows.iter_mut() {
            q.as_mut().zeroize();
        }
    }
}

impl<V: Vector> Drop for Mb<V> {
    fn drop(&mut self) {
        self.zeroize();
    }
}

/// One modulus per lane, all of one digit count d, with k0 = -m^-1 mod
/// 2^28 and R^2 mod m per lane (R = 2^(28 d)). Secret (CRT primes); wiped
/// on drop.
pub struct MbMod<V: Vector> {
    m: Mb<V>,
    k0: V::Row,
    rr: Mb<V>,
}

impl<V: Vector> core::fmt::Debug for MbMod<V> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MbMod")
            .field("m", &self.m)
            .finish_non_exhaustive()
    }
}

impl<V: Vector> MbMod<V> {
    /// The lanes' moduli (one per lane), or None when their digit counts
    /// differ or fall outside MIN_D..=MAX_D. Only digit counts (public)
    /// choose.
    pub fn new(moduli: &[&Modulus28]) -> Option<Self> {
        assert_eq!(moduli.len(), V::LANES, "one modulus per lane");
        let d = moduli[0].digits();
        if moduli.iter().any(|m| m.digits() != d) || !(MIN_D..=MAX_D).contains(&d) {
            return None;
        }
        let ms: Vec<&[u64]> = moduli.iter().map(|m| &m.m[..]).collect();
        let rrs: Vec<&[u64]> = moduli.iter().map(|m| &m.rr[..]).collect();
        let mut k0 = V::Row::default();
        for (k, m) in k0.as_mut().iter_mut().zip(moduli) {
            *k = m.k0;
        }
        Some(MbMod {
            m: Mb::from_lanes(d, &ms),
            k0,
            rr: Mb::from_lanes(d, &rrs),
        })
    }

    /// The digit count d.
    pub fn digits(&self) -> usize {
        self.m.d
    }

    /// R^2 mod m per lane.
    pub fn rr(&self) -> &Mb<V> {
        &self.rr
    }
}

impl<V: Vector> Drop for MbMod<V> {
    fn drop(&mut self) {
        self.k0.as_mut().zeroize();
    }
}

/// Accumulator columns of [`Scratch`]: 2d, and the ones the passes past d
/// write (zero).
const COLS: usize = 2 * MAX_D + PAD;

/// The rows a product or square works in, kept by the caller across a
/// whole exponentiation so that none is zeroed or copied beyond what one
/// call uses: the accumulator's 2d + PAD columns and the square's 2a.
/// Secret; wiped on drop.
pub struct Scratch<V: Vector> {
    acc: Vec<V::Row>,
    twice: Vec<V::Row>,
}

impl<V: Vector> Scratch<V> {
    /// Rows for every digit count up to MAX_D.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Scratch {
            acc: vec![V::Row::default(); COLS],
            twice: vec![V::Row::default(); MAX_D + PAD],
        }
    }
}

impl<V: Vector> Drop for Scratch<V> {
    fn drop(&mut self) {
        for q in self.acc.iter_mut().chain(self.twice.iter_mut()) {
            zeroize::Zeroize::zeroize(q.as_mut());
        }
    }
}

impl Avx2 {
    /// `out = amm(a, b)` in every lane: below 2m_l for a, b below 2m_l.
    #[inline(always)]
    pub fn mb4_amm(self, out: &mut Mb4, a: &Mb4, b: &Mb4, m: &Mb4Mod, sc: &mut Scratch<__m256i>) {
        // SAFETY: the token proves the CPU has AVX2 and the mask allows it.
        unsafe { __m256i::amm(out, a, b, m, sc) }
    }

    /// `out = amm(a, a)` in every lane, by the dedicated square.
    #[inline(always)]
    pub fn mb4_sqr(self, out: &mut Mb4, a: &Mb4, m: &Mb4Mod, sc: &mut Scratch<__m256i>) {
        // SAFETY: the token proves the CPU has AVX2 and the mask allows it.
        unsafe { __m256i::sqr(out, a, m, sc) }
    }

    /// `(base_l f_l)^exp_l` per lane (f_l = 1 without `factor`), out of the
    /// Montgomery domain, below 2 m_l: the fixed-window exponentiation
    /// (`pow::pow`). Bases and factors below their moduli; the exponents
    /// of one limb count (public), their bits secret.
    #[inline(always)]
    pub fn mb4_pow(self, m: &Mb4Mod, base: &Mb4, factor: Option<&Mb4>, exps: &[&[u64]]) -> Mb4 {
        // SAFETY: the token proves the CPU has AVX2 and the mask allows it.
        unsafe { pow::pow(m, base, factor, exps) }
    }
}

impl Avx512 {
    /// [`Avx2::mb4_amm`] on eight lanes.
    #[inline(always)]
    pub fn mb8z_amm(self, out: &mut Mb8z, a: &Mb8z, b: &Mb8z, m: &Mb8zMod, sc: &mut Scratch<__m512i>) {
        // SAFETY: the token proves the CPU has AVX-512F and the mask allows it.
        unsafe { __m512i::amm(out, a, b, m, sc) }
    }

    /// [`Avx2::mb4_sqr`] on eight lanes.
    #[inline(always)]
    pub fn mb8z_sqr(self, out: &mut Mb8z, a: &Mb8z, m: &Mb8zMod, sc: &mut Scratch<__m512i>) {
        // SAFETY: the token proves the CPU has AVX-512F and the mask allows it.
        unsafe { __m512i::sqr(out, a, m, sc) }
    }

    /// [`Avx2::mb4_pow`] on eight lanes.
    #[inline(always)]
    pub fn mb8z_pow(self, m: &Mb8zMod, base: &Mb8z, factor: Option<&Mb8z>, exps: &[&[u64]]) -> Mb8z {
        // SAFETY: the token proves the CPU has AVX-512F and the mask allows it.
        unsafe { pow::pow(m, base, factor, exps) }
    }
}
