//! Karatsuba multiplication and squaring as Montgomery variants: the
//! product t = A B (or A^2) is formed by number-level Karatsuba, then
//! reduced by the Montgomery reduction of SOS ([`super::sos::redc`]).
//!
//! Papers: Koç, Acar and Kaliski, "Analyzing and Comparing Montgomery
//! Multiplication Algorithms", the SOS method (the product is formed whole
//! before the reduction, so any multiplication may form it); Furukawa,
//! Takenaka and Itoh, "A Fast RSA Implementation on Itanium 2", section 6,
//! which leaves number-level Karatsuba for long keys as future work; Shand
//! and Vuillemin, "Fast Implementations of RSA Cryptography", section 7.1,
//! Karatsuba at the digit level.
//!
//! Split an n-limb operand at h = floor(n/2): A = A0 + A1 W^h, with A0 of h
//! limbs and A1 of h' = n - h limbs (h' = h or h + 1). Subtractive form:
//!
//! ```text
//! A B = z0 + (z0 + z2 + (-1)^(sa ^ sb) zm) W^h + z2 W^(2h)
//! z0 = A0 B0,  z2 = A1 B1,  zm = |A0 - A1| |B1 - B0|
//! sa = [A0 < A1],  sb = [B1 < B0]
//! A^2 = z0 + (z0 + z2 - |A0 - A1|^2) W^h + z2 W^(2h)     (no sign)
//! ```
//!
//! Bounds: |A0 - A1| and |B1 - B0| are below W^h', so zm < W^(2h'). The
//! middle term is A0 B1 + A1 B0 < 2 W^n <= 2 W^(2h'): it fits 2h' limbs and
//! one carry bit, so it is formed in 2h' + 1 limbs, where the signed sum
//! z0 + z2 +- zm is exact modulo W^(2h'+1). Added at limb h it ends at limb
//! h + 2h' + 1 <= 2n (as h' + 1 <= n for n >= 2); the carry out of the 2n
//! limbs is 0 because A B < W^(2n).
//!
//! Recursion thresholds: products of fewer than [`MUL_THRESHOLD`] limbs are
//! formed by schoolbook (n^2 word products), squares of fewer than
//! [`SQR_THRESHOLD`] limbs by the schoolbook squaring (each cross product
//! once, about n^2/2); from the threshold up, the three half-size products
//! recurse. The squaring's threshold is higher because its schoolbook is
//! about twice as fast. Chosen values: 24 limbs for the product, 40 for the
//! squaring, by measurement (the figures are in `docs/lab/`); any value of
//! at least 2 gives the same results, only the time changes.
//!
//! Constant time: every branch, loop bound and index depends only on the
//! public limb count n (and the threshold), never on limb values. The signs
//! sa and sb are masks: |x| is (x ^ m) + (m & 1) with m = 0 - borrow, and
//! the signed sum adds (zm ^ m) + (m & 1), m = sa ^ sb, over the 2h' + 1
//! limbs, with no branch on either sign.
//!
//! Workspace: [`work_len`]`(n)` limbs beyond the 2n of the product:
//! 4h' + 1 at each level (zm, then |A0 - A1| and |B1 - B0|, reused with one
//! more limb for the middle term) plus the next level's, about 4n + 3 log n.

use super::sos;
use crate::limb::{adc, mac, sbb};

/// The smallest limb count [`mul`] splits; below it, schoolbook.
pub const MUL_THRESHOLD: usize = 24;

/// The smallest limb count [`square`] splits; below it, schoolbook squaring.
pub const SQR_THRESHOLD: usize = 40;

/// `out = a * b * R^-1 mod n`, fully reduced.
///
/// Preconditions: `a, b < n`; `out`, `a`, `b`, `n` of length `s`; `scratch`
/// at least `2s + 1 + work_len(s)` limbs (as [`super::scratch_len`] gives);
/// `n0 = -n^-1 mod 2^64`.
///
/// ```
/// use redc::mont::{MontContext, karatsuba};
/// let ctx = MontContext::new(&[u64::MAX, u64::MAX >> 1]).unwrap(); // N = 2^127 - 1, R = 2^128
/// let a = ctx.to_mont(&[3]).unwrap();
/// let b = ctx.to_mont(&[u64::MAX, 1]).unwrap(); // 2^65 - 1
/// let mut out = [0u64; 2];
/// karatsuba::mont_mul(&mut out, &a, &b, ctx.modulus(), ctx.n0(), &mut ctx.scratch());
/// assert_eq!(ctx.from_mont(&out).unwrap(), vec![u64::MAX - 2, 5]);
/// ```
pub fn mont_mul(out: &mut [u64], a: &[u64], b: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    let s = n.len();
    assert!(a.len() == s && b.len() == s && out.len() == s);
    assert!(scratch.len() > 2 * s + work_len(s));
    let (t, work) = scratch.split_at_mut(2 * s + 1);
    mul(&mut t[..2 * s], a, b, work);
    t[2 * s] = 0;
    sos::redc(out, t, n, n0);
}

/// `out = a * a * R^-1 mod n`, fully reduced; preconditions as [`mont_mul`].
///
/// ```
/// use redc::mont::{MontContext, karatsuba};
/// let ctx = MontContext::new(&[u64::MAX, u64::MAX >> 1]).unwrap(); // N = 2^127 - 1
/// let a = ctx.to_mont(&[1 << 40]).unwrap();
/// let mut out = [0u64; 2];
/// karatsuba::mont_sqr(&mut out, &a, ctx.modulus(), ctx.n0(), &mut ctx.scratch());
/// assert_eq!(ctx.from_mont(&out).unwrap(), vec![0, 1 << 16]); // 2^80
/// ```
pub fn mont_sqr(out: &mut [u64], a: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    let s = n.len();
    assert!(a.len() == s && out.len() == s);
    assert!(scratch.len() > 2 * s + work_len(s));
    let (t, work) = scratch.split_at_mut(2 * s + 1);
    square(&mut t[..2 * s], a, work);
    t[2 * s] = 0;
    sos::redc(out, t, n, n0);
}

/// The [`super::Kernel`] form of [`mont_sqr`]: squares `a`; `b` is not read.
pub(super) fn as_kernel(out: &mut [u64], a: &[u64], _b: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    mont_sqr(out, a, n, n0, scratch)
}

/// Where a Karatsuba recursion stops, and what forms the products there:
/// [`Schoolbook`] for the portable path; the MULX/ADX bands of
/// `arch::x86_64::adx` for that path. Both decisions depend on the public
/// limb count only.
pub trait Leaves {
    /// Whether an n-limb product (`square` false) or square (true) splits
    /// into three half-size ones; else [`Leaves::mul`] or
    /// [`Leaves::square`] forms it. [`work_len_by`] sizes each level by its
    /// larger half, ceil(n/2): splitting must be monotone in n (as a
    /// threshold is, or a threshold on even counts); [`mul_by`] and
    /// [`square_by`] assert the workspace at every level.
    fn splits(&self, n: usize, square: bool) -> bool;
    /// `r = a * b`, `r` of 2n limbs, for n-limb `a` and `b`.
    fn mul(&self, r: &mut [u64], a: &[u64], b: &[u64]);
    /// `r = a * a`, `r` of 2n limbs.
    fn square(&self, r: &mut [u64], a: &[u64]);
}

/// The portable leaves: schoolbook products below `mul` limbs, schoolbook
/// squares below `sqr` limbs (both at least 2).
#[derive(Clone, Copy, Debug)]
pub struct Schoolbook {
    /// The smallest product that splits.
    pub mul: usize,
    /// The smallest square that splits.
    pub sqr: usize,
}

impl Schoolbook {
    /// The thresholds [`MUL_THRESHOLD`] and [`SQR_THRESHOLD`].
    pub const CHOSEN: Schoolbook = Schoolbook {
        mul: MUL_THRESHOLD,
        sqr: SQR_THRESHOLD,
    };
}

impl Leaves for Schoolbook {
    fn splits(&self, n: usize, square: bool) -> bool {
        n >= if square { self.sqr } else { self.mul }
    }

    fn mul(&self, r: &mut [u64], a: &[u64], b: &[u64]) {
        schoolbook_mul(r, a, b)
    }

    fn square(&self, r: &mut [u64], a: &[u64]) {
        schoolbook_square(r, a)
    }
}

/// Workspace limbs [`mul`] and [`square`] need for n-limb operands.
///
/// ```
/// use redc::mont::karatsuba::{MUL_THRESHOLD, work_len};
/// assert_eq!(work_len(MUL_THRESHOLD - 1), 0); // schoolbook only
/// assert!(work_len(MUL_THRESHOLD) > 0);
/// ```
pub fn work_len(n: usize) -> usize {
    work_len_at(MUL_THRESHOLD.min(SQR_THRESHOLD), n)
}

/// [`work_len`] for a given threshold (at least 2).
pub fn work_len_at(threshold: usize, n: usize) -> usize {
    let t = threshold.max(2);
    work_len_by(&Schoolbook { mul: t, sqr: t }, n)
}

/// Workspace limbs [`mul_by`] and [`square_by`] need for n-limb operands:
/// 4h' + 1 at each level that splits (h' = ceil(n/2)), plus the next
/// level's, which the largest half (h') bounds.
pub fn work_len_by(leaves: &impl Leaves, n: usize) -> usize {
    if n < 2 || !(leaves.splits(n, false) || leaves.splits(n, true)) {
        return 0;
    }
    let hi = n - n / 2;
    4 * hi + 1 + work_len_by(leaves, hi)
}

/// `r = a * b` (2n limbs) for n-limb `a` and `b`, Karatsuba from
/// [`MUL_THRESHOLD`] limbs up; `work` has at least [`work_len`]`(n)` limbs.
///
/// ```
/// use redc::mont::karatsuba;
/// let (a, b) = ([u64::MAX; 40], [3u64; 40]);
/// let mut r = [0u64; 80];
/// karatsuba::mul(&mut r, &a, &b, &mut vec![0; karatsuba::work_len(40)]);
/// // (W^40 - 1) * 3 (W^40 - 1)/(W - 1): compare with the schoolbook product.
/// assert_eq!(r.to_vec(), redc::nat::mul(&a, &b));
/// ```
pub fn mul(r: &mut [u64], a: &[u64], b: &[u64], work: &mut [u64]) {
    mul_at(MUL_THRESHOLD, r, a, b, work)
}

/// `r = a * a` (2n limbs): three half-size squarings per level; `work` as
/// for [`mul`].
///
/// ```
/// use redc::mont::karatsuba;
/// let a = [u64::MAX; 40];
/// let mut r = [0u64; 80];
/// karatsuba::square(&mut r, &a, &mut vec![0; karatsuba::work_len(40)]);
/// assert_eq!(r.to_vec(), redc::nat::mul(&a, &a));
/// ```
pub fn square(r: &mut [u64], a: &[u64], work: &mut [u64]) {
    square_at(SQR_THRESHOLD, r, a, work)
}

/// [`mul`] with the given threshold (at least 2); `work` has
/// [`work_len_at`]`(threshold, n)` limbs.
pub fn mul_at(threshold: usize, r: &mut [u64], a: &[u64], b: &[u64], work: &mut [u64]) {
    assert!(threshold >= 2);
    mul_by(
        &Schoolbook {
            mul: threshold,
            sqr: threshold,
        },
        r,
        a,
        b,
        work,
    )
}

/// [`square`] with the given threshold (at least 2).
pub fn square_at(threshold: usize, r: &mut [u64], a: &[u64], work: &mut [u64]) {
    assert!(threshold >= 2);
    square_by(
        &Schoolbook {
            mul: threshold,
            sqr: threshold,
        },
        r,
        a,
        work,
    )
}

/// `r = a * b` (2n limbs), split where `leaves` says and formed by it below;
/// `work` has at least [`work_len_by`]`(leaves, n)` limbs.
pub fn mul_by(leaves: &impl Leaves, r: &mut [u64], a: &[u64], b: &[u64], work: &mut [u64]) {
    let n = a.len();
    assert!(b.len() == n && r.len() == 2 * n);
    if n < 2 || !leaves.splits(n, false) {
        return leaves.mul(r, a, b);
    }
    assert!(work.len() >= work_len_by(leaves, n));
    let (h, hi) = (n / 2, n - n / 2);
    let (a0, a1) = a.split_at(h);
    let (b0, b1) = b.split_at(h);
    let (r0, r2) = r.split_at_mut(2 * h);
    mul_by(leaves, r0, a0, b0, work); // z0
    mul_by(leaves, r2, a1, b1, work); // z2
    let (zm, rest) = work.split_at_mut(2 * hi);
    let (mid, rest) = rest.split_at_mut(2 * hi + 1);
    let (da, db) = mid[..2 * hi].split_at_mut(hi);
    let sa = abs_diff(da, a0, a1); // all ones when A0 < A1
    let sb = abs_diff(db, b1, b0); // all ones when B1 < B0
    // (A0 - A1)(B1 - B0) < 0 exactly when one factor is negative.
    let neg = sa ^ sb;
    mul_by(leaves, zm, da, db, rest);
    add_middle(r, h, zm, neg, mid);
}

/// `r = a * a` (2n limbs), split where `leaves` says: three half-size
/// squarings per level; `work` as for [`mul_by`].
pub fn square_by(leaves: &impl Leaves, r: &mut [u64], a: &[u64], work: &mut [u64]) {
    let n = a.len();
    assert!(r.len() == 2 * n);
    if n < 2 || !leaves.splits(n, true) {
        return leaves.square(r, a);
    }
    assert!(work.len() >= work_len_by(leaves, n));
    let (h, hi) = (n / 2, n - n / 2);
    let (a0, a1) = a.split_at(h);
    let (r0, r2) = r.split_at_mut(2 * h);
    square_by(leaves, r0, a0, work); // z0
    square_by(leaves, r2, a1, work); // z2
    let (zm, rest) = work.split_at_mut(2 * hi);
    let (mid, rest) = rest.split_at_mut(2 * hi + 1);
    abs_diff(&mut mid[..hi], a0, a1);
    square_by(leaves, zm, &mid[..hi], rest);
    add_middle(r, h, zm, u64::MAX, mid); // z0 + z2 - zm = 2 A0 A1 >= 0
}

/// `d = |x - y|` over `d.len()` limbs (`x` and `y` zero-extended to it);
/// returns the sign as a mask: all ones when `x < y`, else zero.
fn abs_diff(d: &mut [u64], x: &[u64], y: &[u64]) -> u64 {
    assert!(x.len() <= d.len() && y.len() <= d.len());
    let mut borrow = 0;
    for i in 0..d.len() {
        // The conditions compare the index with public lengths only.
        let xi = if i < x.len() { x[i] } else { 0 };
        let yi = if i < y.len() { y[i] } else { 0 };
        (d[i], borrow) = sbb(xi, yi, borrow);
    }
    let m = borrow.wrapping_neg();
    let mut carry = m & 1;
    for di in d.iter_mut() {
        (*di, carry) = adc(*di ^ m, 0, carry);
    }
    m
}

/// With `r = z0 + z2 W^(2h)` (z0 of 2h limbs, z2 of 2h' limbs), add the
/// middle term `(z0 + z2 + (-1)^neg zm) W^h`, where `neg` is a mask and `zm`
/// has 2h' limbs. The middle term is formed in `mid` (2h' + 1 limbs, exact
/// modulo W^(2h'+1) by the module's bounds) and added at limb h; the carry
/// runs on to limb 2n and leaves it as 0.
fn add_middle(r: &mut [u64], h: usize, zm: &[u64], neg: u64, mid: &mut [u64]) {
    let w = zm.len() + 1;
    let z2_at = 2 * h;
    assert!(mid.len() == w && z2_at + zm.len() == r.len() && h + w <= r.len());
    // mid = z0 + z2 (the indices compare with public lengths only).
    let mut c = 0;
    for i in 0..w {
        let z0 = if i < z2_at { r[i] } else { 0 };
        let z2 = if i < zm.len() { r[z2_at + i] } else { 0 };
        (mid[i], c) = adc(z0, z2, c);
    }
    // mid += (-1)^neg zm: add (zm ^ neg) + (neg & 1), zm zero-extended.
    let mut c = neg & 1;
    for i in 0..w {
        let z = if i < zm.len() { zm[i] } else { 0 };
        (mid[i], c) = adc(mid[i], z ^ neg, c);
    }
    let mut c = 0;
    for i in 0..w {
        (r[h + i], c) = adc(r[h + i], mid[i], c);
    }
    for x in r[h + w..].iter_mut() {
        (*x, c) = adc(*x, 0, c);
    }
    debug_assert_eq!(c, 0, "A B < W^(2n)");
}

/// `r = a * b` (2n limbs), operand scanning: row i adds `a b_i` at limb i.
fn schoolbook_mul(r: &mut [u64], a: &[u64], b: &[u64]) {
    let n = a.len();
    let mut c = 0;
    for j in 0..n {
        (r[j], c) = mac(0, a[j], b[0], c);
    }
    r[n] = c;
    for i in 1..n {
        let mut c = 0;
        for j in 0..n {
            (r[i + j], c) = mac(r[i + j], a[j], b[i], c);
        }
        r[i + n] = c; // first write of limb i + n
    }
}

/// `r = a^2` (2n limbs): each cross product a_i a_j (i < j) once, the sum
/// doubled by a one-bit shift (it is below W^(2n) / 2), then the squares
/// a_i^2 added on the diagonal.
fn schoolbook_square(r: &mut [u64], a: &[u64]) {
    let n = a.len();
    r.fill(0);
    for i in 0..n {
        let mut c = 0;
        for j in i + 1..n {
            (r[i + j], c) = mac(r[i + j], a[i], a[j], c);
        }
        r[i + n] = c;
    }
    let mut top = 0;
    for x in r.iter_mut() {
        (*x, top) = ((*x << 1) | top, *x >> 63);
    }
    let mut c = 0;
    for i in 0..n {
        let (lo, hi) = mac(0, a[i], a[i], 0);
        (r[2 * i], c) = adc(r[2 * i], lo, c);
        (r[2 * i + 1], c) = adc(r[2 * i + 1], hi, c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_len_holds_the_product_and_the_workspace() {
        for s in 1..2000 {
            assert!(super::super::scratch_len(s) > 2 * s + work_len(s), "s={s}");
        }
        assert_eq!(work_len(MUL_THRESHOLD.min(SQR_THRESHOLD) - 1), 0);
        // One level: 4h' + 1 with h' = ceil(n/2), then the next level's.
        assert_eq!(work_len_at(2, 2), 4 + 1 + work_len_at(2, 1));
        assert_eq!(work_len_at(2, 3), 8 + 1 + work_len_at(2, 2));
    }

    #[test]
    fn schoolbook_square_at_the_carry_bound() {
        for n in 1..40 {
            let a = vec![u64::MAX; n];
            let (mut sq, mut prod) = (vec![0; 2 * n], vec![0; 2 * n]);
            schoolbook_square(&mut sq, &a);
            schoolbook_mul(&mut prod, &a, &a);
            assert_eq!(sq, prod, "n={n}");
        }
    }
}
