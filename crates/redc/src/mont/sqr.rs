//! Dedicated Montgomery squaring, fused with the reduction.
//!
//! Papers: Shand and Vuillemin, "Fast Implementations of RSA Cryptography", section 7.2 (Shand and Vuillemin: a
//! squaring computes each cross product once; they measured 1.29x);
//! Çelebi, Gözütok and Ertaul, "Implementations of Montgomery Multiplication Algorithms in Machine Languages", FIPS (product scanning), whose column loop
//! this shares (`mont/acc.rs`).
//!
//! Column k of A^2 is `2 sum_{i<j, i+j=k} a_i a_j + [k even] a_{k/2}^2`:
//! the cross products of a column are summed once, doubled once, and the
//! diagonal square added; then the column gets its reduction products
//! m_j n_{k-j} exactly as in FIPS:
//!
//! ```text
//! for k in 0..2s:
//!     acc += 2 (sum of the column's cross products) + diagonal
//!     acc += sum_j m_j n_{k-j}
//!     k < s:  m_k = t0 n0' mod W;  acc += m_k n_0      (clears t0)
//!     k >= s: u_{k-s} = t0
//!     acc >>= W
//! ```
//!
//! Cost: s(s-1)/2 + s word products for A^2 instead of s^2, plus the s^2 of
//! the reduction. Bound: (A^2 + M N)/R < (N^2 + R N)/R < 2N, so the top word
//! left after the last column is 0 or 1; one branch-free subtraction follows.
//! The doubled cross sum of a column is below s W^2 / 2 * 2 < W^3 / 2 for
//! s < 2^62, so doubling keeps it within three words.

use super::acc::Acc;
use crate::limb::reduce_once;

/// `out = a * a * R^-1 mod n`, fully reduced.
///
/// Preconditions: `a < n`; `out`, `a`, `n` of length `s`; `scratch` at least
/// `s` limbs (it holds the m_j); `n0 = -n^-1 mod 2^64`.
///
/// ```
/// use redc::mont::{MontContext, sqr};
/// let ctx = MontContext::new(&[u64::MAX, u64::MAX >> 1]).unwrap(); // N = 2^127 - 1
/// let a = ctx.to_mont(&[1 << 40]).unwrap();
/// let mut out = [0u64; 2];
/// sqr::mont_sqr(&mut out, &a, ctx.modulus(), ctx.n0(), &mut ctx.scratch());
/// assert_eq!(ctx.from_mont(&out).unwrap(), vec![0, 1 << 16]); // 2^80
/// ```
pub fn mont_sqr(out: &mut [u64], a: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    let s = n.len();
    assert!(a.len() == s && out.len() == s && scratch.len() >= s);
    let m = &mut scratch[..s];
    let mut acc = Acc::default();
    for k in 0..2 * s {
        // Cross pairs i < j, i + j = k: i runs up from lo, j down from k - lo < s.
        let lo = (k + 1).saturating_sub(s);
        let pairs = (k + 1).saturating_sub(2 * lo) / 2;
        let cross_pairs = a[lo..lo + pairs]
            .iter()
            .zip(a[k - lo + 1 - pairs..=k - lo].iter().rev());
        // Reduction pairs m_j n_{k-j}: j in 0..k (k < s) or k-s+1..s (k >= s).
        let (mlo, mhi) = if k < s { (0, k) } else { (k - s + 1, s) };
        let mut reduction_pairs = m[mlo..mhi].iter().zip(n[k + 1 - mhi..=k - mlo].iter().rev());
        // Two independent accumulators side by side (pairs <= reduction pairs).
        let mut cross = Acc::default();
        for ((&ai, &aj), (&mj, &nkj)) in cross_pairs.zip(reduction_pairs.by_ref()) {
            cross.mac(ai, aj);
            acc.mac(mj, nkj);
        }
        for (&mj, &nkj) in reduction_pairs {
            acc.mac(mj, nkj);
        }
        cross.double();
        if k % 2 == 0 && k / 2 < s {
            cross.mac(a[k / 2], a[k / 2]);
        }
        acc.add(cross);
        if k < s {
            m[k] = acc.0.wrapping_mul(n0);
            acc.mac(m[k], n[0]); // clears t0
        } else {
            out[k - s] = acc.0;
        }
        acc.shift();
    }
    reduce_once(out, acc.0, n);
}

/// The [`super::Kernel`] form: squares `a`; `b` must be `a` and is not read.
pub(super) fn as_kernel(out: &mut [u64], a: &[u64], _b: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    mont_sqr(out, a, n, n0, scratch)
}
