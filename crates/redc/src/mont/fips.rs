//! Finely Integrated Product Scanning (FIPS) Montgomery multiplication.
//!
//! Paper: Çelebi, Gözütok and Ertaul, "Implementations of Montgomery Multiplication Algorithms in Machine Languages" (Çelebi et al., the five algorithms), after
//! Koç, Acar and Kaliski 1996. The result is built column by column (product
//! scanning): column k sums every a_j b_{k-j} and m_j n_{k-j} into a
//! three-word accumulator (t0, t1, t2); in the low columns the quotient word
//! m_k is chosen to clear t0, in the high columns t0 is the result word:
//!
//! ```text
//! for k in 0..s:   acc += sum_{j<k} (a_j b_{k-j} + m_j n_{k-j}) + a_k b_0
//!                  m_k = t0 n0' mod W;  acc += m_k n_0;  acc >>= W
//! for k in s..2s:  acc += sum_{j=k-s+1}^{s-1} (a_j b_{k-j} + m_j n_{k-j})
//!                  u_{k-s} = t0;  acc >>= W
//! u = (t0, u_{s-1} .. u_0);  if u >= N: u = u - N
//! ```
//!
//! The accumulator's bound is proven in `mont/acc.rs`.

use super::acc::Acc;
use crate::limb::reduce_once;

/// `out = a * b * R^-1 mod n`, fully reduced.
///
/// Preconditions: `a, b < n`; `out`, `a`, `b`, `n` of length `s`;
/// `n0 = -n^-1 mod 2^64`. `scratch` at least `s` limbs (it holds the m_j).
///
/// ```
/// use redc::mont::{MontContext, fips};
/// let ctx = MontContext::new(&[u64::MAX, u64::MAX >> 1]).unwrap(); // N = 2^127 - 1, R = 2^128
/// let a = ctx.to_mont(&[3]).unwrap();
/// let b = ctx.to_mont(&[u64::MAX, 1]).unwrap(); // 2^65 - 1
/// let mut out = [0u64; 2];
/// fips::mont_mul(&mut out, &a, &b, ctx.modulus(), ctx.n0(), &mut ctx.scratch());
/// // 3 (2^65 - 1) = 5 * 2^64 + (2^64 - 3)
/// assert_eq!(ctx.from_mont(&out).unwrap(), vec![u64::MAX - 2, 5]);
/// ```
pub fn mont_mul(out: &mut [u64], a: &[u64], b: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    let top = core(out, a, b, n, n0, scratch);
    reduce_once(out, top, n);
}

/// The column loop without the final subtraction: `(top, out)` is
/// `(a b + M n) / R`, congruent to `a b R^-1 mod n`; returns the top limb.
/// Same preconditions as [`mont_mul`] except that `a, b < 2n` suffice when
/// `4n < R` (then the value is below 2n and the top limb is 0). Shared with
/// the almost-Montgomery variant.
///
/// ```
/// use redc::{limb, mont::{MontContext, fips}};
/// let ctx = MontContext::new(&[u64::MAX, u64::MAX >> 1]).unwrap(); // N = 2^127 - 1
/// let a = ctx.to_mont(&[3]).unwrap();
/// let b = ctx.to_mont(&[u64::MAX, 1]).unwrap();
/// let mut out = [0u64; 2];
/// let top = fips::core(&mut out, &a, &b, ctx.modulus(), ctx.n0(), &mut ctx.scratch());
/// // (top, out) < 2N: the final subtraction is the caller's.
/// limb::reduce_once(&mut out, top, ctx.modulus());
/// assert_eq!(ctx.from_mont(&out).unwrap(), vec![u64::MAX - 2, 5]);
/// ```
pub fn core(out: &mut [u64], a: &[u64], b: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) -> u64 {
    let s = n.len();
    assert!(a.len() == s && b.len() == s && out.len() == s && scratch.len() >= s);
    let m = &mut scratch[..s];
    // Two accumulators per column, one for the a b products and one for the
    // m n products, so that their carry chains run side by side; they are
    // merged before the column's low word is read.
    let mut acc = Acc(0, 0, 0);
    let mut red = Acc(0, 0, 0);
    for k in 0..s {
        // j in 0..k pairs with k - j in k..1 (slices: one bounds check per column).
        let column = a[..k].iter().zip(b[1..=k].iter().rev());
        for ((&aj, &bkj), (&mj, &nkj)) in column.zip(m[..k].iter().zip(n[1..=k].iter().rev())) {
            acc.mac(aj, bkj);
            red.mac(mj, nkj);
        }
        acc.add(red);
        red = Acc::default();
        acc.mac(a[k], b[0]);
        m[k] = acc.0.wrapping_mul(n0);
        acc.mac(m[k], n[0]); // clears t0
        acc.shift();
    }
    for k in s..2 * s {
        // j in k-s+1..s pairs with k - j in s-1..k-s+1.
        let lo = k - s + 1;
        let column = a[lo..].iter().zip(b[lo..].iter().rev());
        for ((&aj, &bkj), (&mj, &nkj)) in column.zip(m[lo..].iter().zip(n[lo..].iter().rev())) {
            acc.mac(aj, bkj);
            red.mac(mj, nkj);
        }
        acc.add(red);
        red = Acc::default();
        out[k - s] = acc.0;
        acc.shift();
    }
    // The value (acc.0, out) is (AB + MN)/R < 2N: acc.0 is 0 or 1.
    acc.0
}
