//! Scalar Montgomery multiplication with MULX and the two carry chains
//! ADCX/ADOX (BMI2 + ADX), with the portable `mont::Kernel` signature. Koc,
//! Acar and Kaliski, "Analyzing and Comparing Montgomery Multiplication
//! Algorithms", sections 3-4 (SOS and CIOS). Portable twin:
//! [`crate::mont::fips`] (and [`crate::mont::sos::redc`] for [`redc`]).
//!
//! One kernel form per file:
//! - [`band`]: eight rows at once, the running sum in registers (the
//!   product and the reduction at limb counts that are multiples of 8, every
//!   RSA size: SOS, t = a b and then its reduction, both by bands);
//! - [`triangle`]: the squaring's off-diagonal triangle by eight-limb blocks
//!   and its doubling plus diagonal;
//! - `rows`: one CIOS row at a time, for other limb counts. Each row adds
//!   the low halves of the 64x64 products on one carry chain (CF, ADCX) and
//!   the high halves, one limb up, on the other (OF, ADOX). With a, b < n,
//!   t < 2n throughout (t + a b_i + m n < 2n + 2 n 2^64, divided by 2^64
//!   after each pair of rows), so t fits s + 1 limbs plus a bit;
//! - [`subtract`]: the one conditional subtraction that finishes every form
//!   (the result below 2n), and the lazy kernels' end ([`mont_mul_lazy`],
//!   [`mont_sqr_lazy`]: values below R, for the exponentiation's loop);
//! - [`sixteen`]: the lazy square and reduction at 16 limbs (RSA-2048's
//!   primes), each in one call;
//! - [`karatsuba`]: the product half of the banded SOS form (t = a b, or
//!   a^2) by number-level Karatsuba over banded leaves, at the large limb
//!   counts where it measured faster.
//!
//! Secrets: the operands, the modulus (a CRT prime) and every intermediate
//! enter only as MULX, ADCX/ADOX and SBB operands; every branch, loop count
//! and address depends on the public limb count alone. Measurements:
//! `docs/lab/` (the Zen 3 cycle counts against OpenSSL's `mulx4x`/`sqrx8x`
//! are in `2026-11-28-zen3-kernel-cycles-mulx-against-avx2.md`).

#[macro_use]
pub mod band;
pub mod karatsuba;
#[macro_use]
mod rows;
pub mod subtract;
#[macro_use]
pub mod triangle;
pub mod sixteen;

pub use subtract::reduce_into;

use band::{ROWS, Sequence};
pub use karatsuba::Bands;

/// Whether the register-blocked bands of [`band`] serve `s` limbs: at
/// multiples of 8 (every RSA size). Elsewhere the rows run one at a time.
/// Public: the size.
fn banded(s: usize) -> bool {
    s.is_multiple_of(ROWS)
}

/// `out = a b R^-1 mod n` (R = 2^(64 s)), fully reduced. Preconditions as
/// `mont::Kernel`: equal lengths s >= 1, a, b < n, n odd, n0 = -n^-1 mod 2^64,
/// `scratch.len() >= s + 3` (the banded SOS form needs 2s + 1, which
/// `mont::scratch_len` gives; with less, CIOS runs). Panics on wrong lengths
/// or without BMI2/ADX.
pub fn mont_mul(out: &mut [u64], a: &[u64], b: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    mont_mul_by(Bands::CHOSEN, out, a, b, n, n0, scratch)
}

/// [`mont_mul`] with the given Karatsuba thresholds (`Bands::NEVER`: the
/// bands alone), for the benchmark that measures where Karatsuba pays.
/// It splits only where `scratch` also holds its workspace, which
/// `mont::scratch_len` gives for any thresholds.
pub fn mont_mul_by(
    bands: Bands,
    out: &mut [u64],
    a: &[u64],
    b: &[u64],
    n: &[u64],
    n0: u64,
    scratch: &mut [u64],
) {
    let s = n.len();
    assert!(s >= 1 && a.len() == s && b.len() == s && out.len() == s && scratch.len() >= s + 3);
    super::require_bmi2_adx();
    if banded(s) && scratch.len() > 2 * s {
        // SOS: t = a b, then the banded reduction.
        let (t, work) = scratch.split_at_mut(2 * s + 1);
        sos_product(bands, t, a, b, work);
        redc(out, t, n, n0);
        return;
    }
    // scratch[0] is the landing limb of the shifted store of the zero limb 0.
    let (_, t) = scratch[..s + 3].split_at_mut(1);
    t.fill(0);
    for &bi in b {
        // t < 2n before the row; t + a b_i < 2n + n 2^64 fits s + 2 limbs.
        let c = row!(&mut t[..s + 1], a, bi, "0");
        t[s + 1] += c;
        let m = t[0].wrapping_mul(n0);
        // (t + m n) / 2^64 < (2n + n 2^64 + n 2^64) / 2^64 < 2n + 1: the shifted store.
        let c = row!(&mut t[..s + 1], n, m, "8");
        t[s] = t[s + 1] + c;
        t[s + 1] = 0;
    }
    reduce_into(out, &t[..s], t[s], n);
}

/// `out = a^2 R^-1 mod n`, fully reduced: a dedicated squaring (separated
/// operand scanning, seed 003 section 7.2). The off-diagonal triangle
/// sum_{i<j} a_i a_j 2^(64(i+j)) takes s(s-1)/2 MULX products in rows of
/// shrinking length, is doubled once by a one-bit shift, and gets the
/// diagonal a_i^2 added; then s reduction rows (t += m_i n 2^(64 i)) leave
/// (a^2 + M n) / R < 2n in the upper half. 1.5 s^2 products instead of 2 s^2.
/// Same contract as [`mont_mul`] (`scratch.len() >= 2s + 1`).
pub fn mont_sqr(out: &mut [u64], a: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    mont_sqr_by(Bands::CHOSEN, out, a, n, n0, scratch)
}

/// [`mont_sqr`] with the given Karatsuba thresholds, as [`mont_mul_by`].
pub fn mont_sqr_by(bands: Bands, out: &mut [u64], a: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    let s = n.len();
    assert!(s >= 1 && a.len() == s && out.len() == s && scratch.len() > 2 * s);
    super::require_bmi2_adx();
    let (t, work) = scratch.split_at_mut(2 * s + 1);
    if banded(s) {
        sos_square(bands, t, a, work);
    } else {
        // Triangle: row i adds a_i * a[i+1..] at limb 2i + 1; limb i + s + 1 is
        // still untouched when row i carries into it. Limb 2s stays zero.
        t.fill(0);
        for i in 0..s - 1 {
            let c = row!(&mut t[2 * i + 1..=i + s], &a[i + 1..], a[i], "0");
            t[i + s + 1] += c;
        }
        triangle::double_add_diagonal(&mut t[..2 * s], a);
    }
    redc(out, t, n, n0);
}

/// `out = a b R^-1 mod n` up to a multiple of n, below R: the lazy
/// Montgomery product of the exponentiation loop, for any s-limb `a` and
/// `b` (below R, not necessarily below n). With a, b < R, t = a b < R^2,
/// t + M n < R^2 + R n < 2^(64 (2s + 1)) and (t + M n) / R < R + n, so one
/// subtraction of n where that value's top bit is set brings it below R
/// with no compare ([`subtract::subtract_if_top`]); the fully reduced value
/// comes from one [`mont_mul`] at the end (by 1, for instance: (x + M n) / R
/// <= n for x < R). s a multiple of 8 (the banded SOS form) and
/// `scratch.len() > 2s` (with the Karatsuba workspace where it splits, as
/// `mont::scratch_len` gives). Panics on wrong lengths or without BMI2/ADX.
pub fn mont_mul_lazy(out: &mut [u64], a: &[u64], b: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    let s = n.len();
    assert!(banded(s) && a.len() == s && b.len() == s && out.len() == s && scratch.len() > 2 * s);
    super::require_bmi2_adx();
    let (t, work) = scratch.split_at_mut(2 * s + 1);
    sos_product(Bands::CHOSEN, t, a, b, work);
    lazy_end(out, t, n, n0);
}

/// `out = a^2 R^-1 mod n` up to a multiple of n, below R, for any s-limb
/// `a`: [`mont_mul_lazy`]'s contract with the dedicated squaring.
pub fn mont_sqr_lazy(out: &mut [u64], a: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    let s = n.len();
    assert!(banded(s) && a.len() == s && out.len() == s && scratch.len() > 2 * s);
    super::require_bmi2_adx();
    let (t, work) = scratch.split_at_mut(2 * s + 1);
    if s == 2 * ROWS {
        sixteen::sqr16_lazy(out, a, t, n, n0);
        return;
    }
    sos_square(Bands::CHOSEN, t, a, work);
    lazy_end(out, t, n, n0);
}

/// The reduction and end of the lazy kernels: `out = (t + M n) / R`, less
/// n where that reaches R. At 16 limbs in one call
/// ([`sixteen::reduce16_lazy`]).
fn lazy_end(out: &mut [u64], t: &mut [u64], n: &[u64], n0: u64) {
    let s = n.len();
    if s == 2 * ROWS {
        sixteen::reduce16_lazy(out, t, n, n0);
        return;
    }
    let top = reduce_bands(t, n, n0);
    subtract::subtract_if_top(out, &t[s..2 * s], top, n);
}

/// Whether the lazy kernels ([`mont_mul_lazy`], [`mont_sqr_lazy`]) serve
/// an `s`-limb modulus: where the banded SOS form runs.
pub fn lazy_serves(s: usize) -> bool {
    banded(s)
}

/// The product half of the banded SOS form: `t[..2s] = a b` and `t[2s] =
/// 0` (t has 2s + 1 limbs), by bands or, from `bands`' threshold and where
/// `work` holds its workspace, by Karatsuba over bands. s a multiple of 8;
/// the caller checked BMI2/ADX.
fn sos_product(bands: Bands, t: &mut [u64], a: &[u64], b: &[u64], work: &mut [u64]) {
    let s = a.len();
    if !karatsuba::mul(bands, &mut t[..2 * s], a, b, work) {
        product(&mut t[..2 * s], a, b);
    }
    t[2 * s] = 0;
}

/// [`sos_product`] for `t[..2s] = a^2`, by the banded squaring.
fn sos_square(bands: Bands, t: &mut [u64], a: &[u64], work: &mut [u64]) {
    let s = a.len();
    if !karatsuba::square(bands, &mut t[..2 * s], a, work) {
        square(&mut t[..2 * s], a);
    }
    t[2 * s] = 0;
}

/// `r = a b` (2s limbs) by bands of eight rows, for s-limb `a` and `b`, s a
/// multiple of 8. The caller checked BMI2/ADX.
fn product(r: &mut [u64], a: &[u64], b: &[u64]) {
    let s = a.len();
    assert!(banded(s) && b.len() == s && r.len() == 2 * s);
    r.fill(0);
    // Band k ends at limb 8k + s, where band k - 1's carry is pending; the
    // last one's lands on limb 2s, past r: a b < R^2, so it is zero.
    let carry = band::band_sequence(r, 0, a, Sequence::Product(b), s / ROWS, 0);
    debug_assert_eq!(carry, 0);
}

/// `r = a^2` (2s limbs), s a multiple of 8: the triangle by blocks of eight
/// limbs A_k = a[8k..8k+8], each block's own triangle written over limbs
/// 16k..16k + 16 (together every limb of r, so nothing is cleared first),
/// then its products with every later block as one band at limb 16k + 8;
/// then the doubling and the diagonal. The caller checked BMI2/ADX.
fn square(r: &mut [u64], a: &[u64]) {
    let s = a.len();
    assert!(banded(s) && r.len() == 2 * s);
    if s == 2 * ROWS {
        triangle::triangle16(r, a);
        triangle::double_add_diagonal(r, a);
        return;
    }
    for (k, ak) in a.chunks_exact(ROWS).enumerate() {
        triangle::triangle8(&mut r[2 * ROWS * k..], ak);
    }
    // Band k (at limb 16k + 8, over s - 8k - 8 limbs) ends at limb 8k + s,
    // where band k - 1's carry is pending; the last one's runs up r.
    if s > ROWS {
        let carry = band::band_sequence(r, ROWS, &a[ROWS..], Sequence::Triangle(a), s / ROWS - 1, 0);
        // The triangle is below R^2 / 2: no carry leaves r.
        let c = band::carry_up(&mut r[2 * s - ROWS..], carry);
        debug_assert_eq!(c, 0);
    }
    triangle::double_add_diagonal(r, a);
}

/// `out = t R^-1 mod n`, fully reduced, for `t < n R` in 2s + 1 limbs (the
/// top one zero; t is overwritten): Montgomery reduction (seed 001, the
/// reduction half of SOS) in s rows t += m_i n 2^(64 i), m_i = t_i n0, on
/// the MULX/ADX rows. (t + M n) / R < 2n, so one conditional subtraction
/// finishes. The same contract as `mont::sos::redc`, its portable twin.
/// Panics on wrong lengths or without BMI2/ADX.
pub fn redc(out: &mut [u64], t: &mut [u64], n: &[u64], n0: u64) {
    let s = n.len();
    assert!(s >= 1 && t.len() == 2 * s + 1 && out.len() == s);
    super::require_bmi2_adx();
    if banded(s) {
        reduce_bands(t, n, n0);
    } else {
        // The carry out of each row's top limb waits in `extra` (0 or 1).
        let mut extra = 0u64;
        for i in 0..s {
            let m = t[i].wrapping_mul(n0);
            let c = row!(&mut t[i..=i + s], n, m, "0");
            let (v, o1) = t[i + s + 1].overflowing_add(c);
            let (v, o2) = v.overflowing_add(extra);
            t[i + s + 1] = v;
            extra = o1 as u64 + o2 as u64;
        }
        debug_assert_eq!(extra, 0);
    }
    // t < n R: (t + M n) / R < 2n, and limb 2s holds its top bit.
    reduce_into(out, &t[s..2 * s], t[2 * s], n);
}

/// The banded reduction of `t` (2s + 1 limbs, the top one zero, t < R^2):
/// t += M n with M < R chosen so that t's low s limbs become zero; returns
/// the top limb, 0 or 1. Eight rows per band, the bands in one call
/// ([`band::band_sequence`]):
/// band k clears t's limbs 8k..8k+8 and ends at limb 8k + s, where band
/// k - 1's carry is pending; the last one's lands on limb 2s. s a multiple
/// of 8; the caller checked BMI2/ADX.
fn reduce_bands(t: &mut [u64], n: &[u64], n0: u64) -> u64 {
    let s = n.len();
    let carry = band::band_sequence(t, 0, n, Sequence::Reduce(n0), s / ROWS, 0);
    // t + M n < R^2 + R n < 2 R^2 = 2^(64 (2s) + 1): limb 2s ends 0 or 1.
    let c = band::carry_up(&mut t[2 * s..], carry);
    debug_assert_eq!(c, 0);
    t[2 * s]
}
