//! Itoh's pipelined FIOS Montgomery multiplication.
//!
//! Paper: Furukawa, Takenaka and Itoh, "A Fast RSA Implementation on Itanium 2" (Furukawa, Takenaka, Itoh), Algorithm 3 /
//! Fig. 3, "Itoh's algorithm for REDC". Each inner step has two
//! multiply-accumulate chains with carries of their own:
//!
//! ```text
//! upper:  (C1, tmp)     = y_i + C1 + a_i b_j
//! lower:  (C2, y_{i-1}) = tmp + C2 + m n_i
//! ```
//!
//! The upper chain of step i+1 reads only C1 and y_{i+1} (from the previous
//! outer round), never the lower result of step i; this independence is
//! what lets the two chains run in parallel in a pipeline (000 section 3.1,
//! dependencies 1-i to 1-iii). In FIOS ([`super::fios`]) one carry runs from
//! the lower product into the next upper one instead.
//!
//! Bounds: each chain's value is at most (W-1) + (W-1) + (W-1)^2 = W^2 - 1,
//! so both carries fit a word. The round ends with
//! (y_s, y_{s-1}) = C1 + C2 + y_s. After round j, Y = (A b_{0..j} + M N) / W^(j+1)
//! < A + N < 2N, so y_s <= 1.

use crate::limb::{mac, reduce_once};

/// `out = a * b * R^-1 mod n`, fully reduced.
///
/// Preconditions: `a, b < n`; `out`, `a`, `b`, `n` of length `s`; `scratch` at
/// least `s + 1` limbs; `n0 = -n^-1 mod 2^64`.
///
/// ```
/// use redc::mont::{MontContext, itoh};
/// let ctx = MontContext::new(&[u64::MAX, u64::MAX >> 1]).unwrap(); // N = 2^127 - 1, R = 2^128
/// let a = ctx.to_mont(&[3]).unwrap();
/// let b = ctx.to_mont(&[u64::MAX, 1]).unwrap(); // 2^65 - 1
/// let mut out = [0u64; 2];
/// itoh::mont_mul(&mut out, &a, &b, ctx.modulus(), ctx.n0(), &mut ctx.scratch());
/// // 3 (2^65 - 1) = 5 * 2^64 + (2^64 - 3)
/// assert_eq!(ctx.from_mont(&out).unwrap(), vec![u64::MAX - 2, 5]);
/// ```
pub fn mont_mul(out: &mut [u64], a: &[u64], b: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    let s = n.len();
    assert!(a.len() == s && b.len() == s && out.len() == s && scratch.len() > s);
    let y = &mut scratch[..s + 1];
    y.fill(0);
    for &bj in b {
        let (tmp, mut c1) = mac(y[0], a[0], bj, 0);
        let m = tmp.wrapping_mul(n0);
        let (_, mut c2) = mac(tmp, m, n[0], 0);
        for i in 1..s {
            let tmp;
            (tmp, c1) = mac(y[i], a[i], bj, c1); // upper chain
            (y[i - 1], c2) = mac(tmp, m, n[i], c2); // lower chain
        }
        let top = (c1 as u128) + (c2 as u128) + (y[s] as u128);
        y[s - 1] = top as u64;
        y[s] = (top >> 64) as u64;
    }
    out.copy_from_slice(&y[..s]);
    reduce_once(out, y[s], n);
}
