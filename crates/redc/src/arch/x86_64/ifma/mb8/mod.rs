//! Eight independent radix-2^52 almost-Montgomery products at once, one per
//! 64-bit lane of a 512-bit register ("multi-buffer", vertical layout), and
//! the constant-time fixed-window exponentiation on them: the kernel of
//! batch signing, where eight private operations (CRT halves of one or of
//! several keys, moduli of one digit count) share every instruction.
//!
//! Papers: Zhao, Wang, Lu and Dai, "Hierarchical Optimizations for High
//! Speed Implementation of Modular Exponentiation in ASIC" (002), Algorithm 1
//! (high-radix Montgomery, inputs below 2M, no final subtraction); Shand and
//! Vuillemin, "Fast Implementations of RSA Cryptography" (003), section 4.2
//! (the window method) and section 5 (Montgomery = Hensel's odd division,
//! the 2M bound).
//!
//! # Layout
//!
//! `Mb8<D>.0[j][l]` is digit j of lane l's operand: register j holds digit j
//! of all eight operations. No instruction moves data between lanes, so the
//! lanes are eight independent computations with no dependency chain across
//! them: the multiplier, not the latency of one product, bounds the kernel.
//!
//! # Product (operand scanning, one fused pass per step)
//!
//! T holds positions 0..2D of a b + Y m in 64-bit lanes, never carried during
//! the product. At step i the quotient digit needs position i in full:
//!
//! ```text
//! x_i = T[i] + lo(a_0 b_i) + c_{i-1}      (T[i]: contributions of steps < i)
//! y_i = lo(x_i k0)                         k0 = -m^-1 mod 2^52, per lane
//! c_i = (x_i + 2^52 - 1) >> 52             carry of position i after + lo(n_0 y_i)
//! ```
//!
//! (x = H 2^52 + L and L + lo(n_0 y) is 0 or 2^52, the latter exactly when
//! L != 0.) Then one pass over j adds lo(a_j b_i) + hi(a_{j-1} b_i) +
//! lo(n_j y_i) + hi(n_{j-1} y_i) to T[i + j] (j = 1..=D; position i itself is
//! done: its value is x_i + lo(n_0 y_i) = c_i 2^52). At the end the carry
//! c_{D-1} joins T\[D\] and positions D..2D-1 are carried digit by digit.
//!
//! Lane bound: a position receives four halves (< 2^52 each) per step for at
//! most D + 1 steps: below 4 (D + 1) 2^52 <= 164 * 2^52 < 2^60 for D <= 40,
//! plus a carry below 2^8. No lane overflows.
//!
//! Almost-Montgomery: (a b + Y m) / R < 2m for a, b < 2m and 4m < R
//! (proof in `arch::portable52`), per lane; outputs are valid inputs.
//!
//! # Three kernels, one result
//!
//! - `amm_cols`: product scanning (seed 001's FIPS order) in blocks of K
//!   columns held in registers (D >= K; used above 20 digits).
//! - `amm_reg`: the same steps with positions i..i+D in registers, the
//!   window shifted by renaming (D <= [`REG_MAX_D`] = 20, where D + 1
//!   accumulators and a dozen other values fit the 32 registers).
//! - `sqr`: dedicated squaring (D <= 20): the square by product scanning
//!   (each cross pair once, doubled per column; seed 001, SOS), then the
//!   reduction with the register window. D (D + 1) products of a a where a
//!   product has 2 D^2.
//! - `sqr_cols`: dedicated squaring above 20 digits, in `amm_cols`'
//!   column blocks (each block's cross pairs once, doubled, the diagonal,
//!   then the same reduction).
//!
//! All four compute the same quotient digits, so the same output bit for
//! bit (tested against the portable twin, `portable52::amm_mul`).
//!
//! # Constant time
//!
//! Every lane runs the same instructions; nothing branches on or indexes by
//! any lane's data. The window of each lane's exponent selects its table
//! entry through masked moves over all 16 entries (`gather`). The
//! exponents' LENGTH (one for all lanes) is public, their bits are secret.
//!
//! # One kernel form per file
//!
//! Here: the layout ([`Mb8`], [`Mb8Mod`]), the product and squaring
//! entries that pick a kernel by digit count (`amm`, `amm_scratch`,
//! `sqr_any`) and the scratch rows ([`Scratch`]). Then:
//! - `cols`: the column-block kernels `amm_cols` and `sqr_cols`
//!   (above [`REG_MAX_D`] digits);
//! - `reg`: the register-window kernels `amm_reg` and `sqr` (up to
//!   [`REG_MAX_D`] digits);
//! - `pow`: the constant-time table read and the exponentiations `pow`
//!   and `pow_public`.

// Register arrays indexed by constant-bound counters.
#![allow(clippy::needless_range_loop)]

use core::arch::x86_64::*;

use zeroize::Zeroize;

use crate::arch::portable52::Modulus52;
use crate::arch::x86_64::cpu::Ifma;

/// Lanes per register: eight operations.
pub const LANES: usize = 8;

/// The largest digit count (2078-bit moduli, the CRT halves of RSA-4096).
pub const MAX_D: usize = 40;

/// Columns per block of [`amm_cols`]: K accumulators stay in registers.
const K: usize = 8;

/// Eight operands of D digits: `.0[j][l]` = digit j of lane l.
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug)]
pub struct Mb8<const D: usize>(pub [[u64; 8]; D]);

impl<const D: usize> Mb8<D> {
    /// All zero.
    pub const ZERO: Self = Mb8([[0; 8]; D]);

    /// Lane l gets `lanes[l]` (at most D digits each; missing lanes are zero).
    pub fn from_lanes(lanes: &[&[u64]]) -> Self {
        assert!(lanes.len() <= LANES);
        let mut out = Self::ZERO;
        for (l, x) in lanes.iter().enumerate() {
            assert!(x.len() <= D);
            for (j, &v) in x.iter().enumerate() {
                out.0[j][l] = v;
            }
        }
        out
    }

    /// Lane l's D digits.
    pub fn lane(&self, l: usize) -> Vec<u64> {
        (0..D).map(|j| self.0[j][l]).collect()
    }
}

impl<const D: usize> Zeroize for Mb8<D> {
    fn zeroize(&mut self) {
        for r in self.0.iter_mut() {
            r.zeroize();
        }
    }
}

/// Eight moduli of D digits (any mix: secret CRT primes of several keys),
/// their k0 and R^2 per lane. Wiped on drop.
pub struct Mb8Mod<const D: usize> {
    n: Mb8<D>,
    k0: [u64; 8],
    rr: Mb8<D>,
}

impl<const D: usize> Mb8Mod<D> {
    /// From eight prepared moduli, each of exactly D digits.
    pub fn new(moduli: [&Modulus52; LANES]) -> Self {
        assert!(D <= MAX_D && moduli.iter().all(|m| m.d == D));
        let n: Vec<&[u64]> = moduli.iter().map(|m| &m.m[..]).collect();
        let rr: Vec<&[u64]> = moduli.iter().map(|m| &m.rr[..]).collect();
        Mb8Mod {
            n: Mb8::from_lanes(&n),
            k0: moduli.map(|m| m.k0),
            rr: Mb8::from_lanes(&rr),
        }
    }
}

impl<const D: usize> Drop for Mb8Mod<D> {
    fn drop(&mut self) {
        self.n.zeroize();
        self.k0.zeroize();
        self.rr.zeroize();
    }
}

/// `out = amm(a, b)` in every lane: digits below 2^52, values below 2m.
///
/// # Safety
/// Call only where AVX-512F and AVX-512IFMA are available.
#[target_feature(enable = "avx512f,avx512ifma")]
fn amm<const D: usize>(out: &mut Mb8<D>, a: &Mb8<D>, b: &Mb8<D>, m: &Mb8Mod<D>) {
    let mut t = Scratch::new();
    amm_any(out, a, b, m, &mut t);
}

/// The largest digit count whose D + 1 accumulators `amm_reg` keeps in
/// registers (with its dozen other live registers, of 32).
pub const REG_MAX_D: usize = 20;

/// [`amm_reg`] up to [`REG_MAX_D`] digits, [`amm_cols`] above (where the
/// register window would spill); each measured faster than a row kernel
/// that stores every position at every step, and the spilling register
/// window slower than both (docs/PERFORMANCE.md, "Eight-lane kernel:
/// register window up to 20 digits, column blocks above").
#[inline(always)]
fn amm_any<const D: usize>(out: &mut Mb8<D>, a: &Mb8<D>, b: &Mb8<D>, m: &Mb8Mod<D>, scratch: &mut Scratch) {
    if D <= REG_MAX_D {
        // SAFETY: the caller has AVX-512F and AVX-512IFMA (`amm`'s and
        // `pow`'s contract).
        unsafe { amm_reg(out, a, b, m) }
    } else {
        // SAFETY: as above.
        unsafe { amm_cols(out, a, b, m, scratch) }
    }
}

/// [`amm`] with the caller's scratch rows (no zeroing per product), for
/// chains of products outside [`pow`].
///
/// # Safety
/// Call only where AVX-512F and AVX-512IFMA are available.
#[target_feature(enable = "avx512f,avx512ifma")]
fn amm_scratch<const D: usize>(
    out: &mut Mb8<D>,
    a: &Mb8<D>,
    b: &Mb8<D>,
    m: &Mb8Mod<D>,
    scratch: &mut Scratch,
) {
    amm_any(out, a, b, m, scratch);
}

impl<const D: usize> Mb8Mod<D> {
    /// R^2 mod m per lane, in digits (the factor that takes a value into the
    /// Montgomery domain: `amm(x, rr) = x R`).
    pub fn rr(&self) -> &Mb8<D> {
        &self.rr
    }
}

/// `out = amm(a, a)`: [`sqr`] up to [`REG_MAX_D`] digits, [`sqr_cols`]
/// above (the same split as `amm_any`).
///
/// # Safety
/// Call only where AVX-512F and AVX-512IFMA are available.
#[target_feature(enable = "avx512f,avx512ifma")]
fn sqr_any<const D: usize>(out: &mut Mb8<D>, a: &Mb8<D>, m: &Mb8Mod<D>, scratch: &mut Scratch) {
    if D <= REG_MAX_D {
        sqr(out, a, m, scratch)
    } else {
        sqr_cols(out, a, m, scratch)
    }
}

/// The positions of one product: 2D + 1 rows (of at most 2 MAX_D + 1) reused
/// across the products of an exponentiation, so that no product clears all
/// 81 rows (5 KiB) when it needs 41.
pub struct Scratch {
    /// [`sqr`]'s columns.
    t: [__m512i; 2 * MAX_D + 1],
    /// [`amm_cols`]'s operand rows, each between K zero rows on either side.
    cols: ColRows,
}

impl Scratch {
    /// Zeroed rows.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        // SAFETY: an all-zero __m512i is a valid value, and the struct is only
        // __m512i arrays.
        unsafe { core::mem::zeroed() }
    }

    /// Overwrite every row with zeros (the rows hold secret operands and
    /// quotient digits after a product).
    pub fn wipe(&mut self) {
        let zero = [0u8; 64];
        for v in self
            .t
            .iter_mut()
            .chain(self.cols.b.iter_mut())
            .chain(self.cols.y.iter_mut())
        {
            // SAFETY: a __m512i is 64 bytes; the volatile write keeps the wipe.
            unsafe { core::ptr::write_volatile(v as *mut __m512i as *mut [u8; 64], zero) };
        }
    }
}

/// Padded rows for [`amm_cols`]: row K + k holds digit k; the K rows on each
/// side stay zero, so that a block's loads need no bounds.
struct ColRows {
    b: [__m512i; MAX_D + 2 * K],
    y: [__m512i; MAX_D + 2 * K],
    n: [__m512i; MAX_D + 2 * K],
}

mod cols;
mod pow;
mod reg;

use cols::{amm_cols, sqr_cols};
use pow::{pow, pow_public};
use reg::{amm_reg, sqr};

/// The safe entries to the eight-lane kernels: each takes the [`Ifma`]
/// token, which exists only where the CPU has AVX-512F and AVX-512 IFMA
/// (with VL) and the mask does not hide them. Operand preconditions are
/// those of the kernel named (bounds, not memory safety).
impl Ifma {
    /// `out = amm(a, b)` in every lane (`amm`).
    #[inline(always)]
    pub fn mb8_amm<const D: usize>(self, out: &mut Mb8<D>, a: &Mb8<D>, b: &Mb8<D>, m: &Mb8Mod<D>) {
        // SAFETY: the token proves the CPU has AVX-512F and IFMA and the mask allows them.
        unsafe { amm::<D>(out, a, b, m) }
    }

    /// `out = amm(a, b)` in every lane with the caller's scratch rows (`amm_scratch`).
    #[inline(always)]
    pub fn mb8_amm_scratch<const D: usize>(
        self,
        out: &mut Mb8<D>,
        a: &Mb8<D>,
        b: &Mb8<D>,
        m: &Mb8Mod<D>,
        scratch: &mut Scratch,
    ) {
        // SAFETY: the token proves the CPU has AVX-512F and IFMA and the mask allows them.
        unsafe { amm_scratch::<D>(out, a, b, m, scratch) }
    }

    /// `out = amm(a, a)` in every lane (`sqr_any`).
    #[inline(always)]
    pub fn mb8_sqr_any<const D: usize>(
        self,
        out: &mut Mb8<D>,
        a: &Mb8<D>,
        m: &Mb8Mod<D>,
        scratch: &mut Scratch,
    ) {
        // SAFETY: the token proves the CPU has AVX-512F and IFMA and the mask allows them.
        unsafe { sqr_any::<D>(out, a, m, scratch) }
    }

    /// The eight-lane fixed-window exponentiation, secret exponents (`pow()`).
    #[inline(always)]
    pub fn mb8_pow<const D: usize>(
        self,
        m: &Mb8Mod<D>,
        base: &Mb8<D>,
        factor: Option<&Mb8<D>>,
        exps: &[&[u64]; LANES],
    ) -> Mb8<D> {
        // SAFETY: the token proves the CPU has AVX-512F and IFMA and the mask allows them.
        unsafe { pow::<D>(m, base, factor, exps) }
    }

    /// The eight-lane exponentiation by one public exponent (`pow_public`).
    #[inline(always)]
    pub fn mb8_pow_public<const D: usize>(self, m: &Mb8Mod<D>, base: &Mb8<D>, e: &[u64]) -> Mb8<D> {
        // SAFETY: the token proves the CPU has AVX-512F and IFMA and the mask allows them.
        unsafe { pow_public::<D>(m, base, e) }
    }
}
