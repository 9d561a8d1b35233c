//! Enhanced Itoh Montgomery multiplication (three independent chains).
//!
//! Paper: Furukawa, Takenaka and Itoh, "A Fast RSA Implementation on Itanium 2", section 3.2, Fig. 4 and 5. In Itoh's form
//! ([`super::itoh`]) the lower multiply-add waits for the upper addition.
//! The enhancement splits each step into two plain multiply-adds and one
//! four-input addition A'':
//!
//! ```text
//! upper MA:  (C1, tmp1)    = a_i b_j + C1        (depends on upper MA of step i-1)
//! lower MA:  (C2, tmp2)    = m n_i + C2          (depends on lower MA of step i-1)
//! A'':       (C3, y_{i-1}) = tmp1 + tmp2 + y_i + C3
//! ```
//!
//! so the lower MA depends on the previous lower MA, not on the upper
//! addition (dependencies 3-i to 3-iv of the paper).
//!
//! Bounds: each MA is at most (W-1)^2 + (W-1) < W^2, so C1, C2 fit a word;
//! A'' adds three words and C3 <= 2, at most 3(W-1) + 2 < 3W, so C3 <= 2
//! again. The round ends with (y_s, y_{s-1}) = C1 + C2 + C3 + y_s, and
//! Y < 2N after each round keeps y_s <= 1.

use crate::limb::{mac, reduce_once};

/// `out = a * b * R^-1 mod n`, fully reduced.
///
/// Preconditions: `a, b < n`; `out`, `a`, `b`, `n` of length `s`; `scratch` at
/// least `s + 1` limbs; `n0 = -n^-1 mod 2^64`.
///
/// ```
/// use redc::mont::{MontContext, itoh_enhanced};
/// let ctx = MontContext::new(&[u64::MAX, u64::MAX >> 1]).unwrap(); // N = 2^127 - 1, R = 2^128
/// let a = ctx.to_mont(&[3]).unwrap();
/// let b = ctx.to_mont(&[u64::MAX, 1]).unwrap(); // 2^65 - 1
/// let mut out = [0u64; 2];
/// itoh_enhanced::mont_mul(&mut out, &a, &b, ctx.modulus(), ctx.n0(), &mut ctx.scratch());
/// // 3 (2^65 - 1) = 5 * 2^64 + (2^64 - 3)
/// assert_eq!(ctx.from_mont(&out).unwrap(), vec![u64::MAX - 2, 5]);
/// ```
pub fn mont_mul(out: &mut [u64], a: &[u64], b: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    let s = n.len();
    assert!(a.len() == s && b.len() == s && out.len() == s && scratch.len() > s);
    let y = &mut scratch[..s + 1];
    y.fill(0);
    for &bj in b {
        let (tmp1, mut c1) = mac(0, a[0], bj, 0);
        let m = tmp1.wrapping_add(y[0]).wrapping_mul(n0);
        let (tmp2, mut c2) = mac(0, m, n[0], 0);
        // Low word of tmp1 + tmp2 + y_0 is 0 by choice of m.
        let mut c3 = ((tmp1 as u128 + tmp2 as u128 + y[0] as u128) >> 64) as u64;
        for i in 1..s {
            let (tmp1, tmp2);
            (tmp1, c1) = mac(0, a[i], bj, c1); // upper MA
            (tmp2, c2) = mac(0, m, n[i], c2); // lower MA
            let sum = tmp1 as u128 + tmp2 as u128 + y[i] as u128 + c3 as u128; // A''
            y[i - 1] = sum as u64;
            c3 = (sum >> 64) as u64;
        }
        let top = c1 as u128 + c2 as u128 + c3 as u128 + y[s] as u128;
        y[s - 1] = top as u64;
        y[s] = (top >> 64) as u64;
    }
    out.copy_from_slice(&y[..s]);
    reduce_once(out, y[s], n);
}
