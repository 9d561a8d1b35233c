//! Finely Integrated Operand Scanning (FIOS) Montgomery multiplication.
//!
//! Paper: Çelebi, Gözütok and Ertaul, "Implementations of Montgomery Multiplication Algorithms in Machine Languages" (Çelebi et al., the five algorithms), after
//! Koç, Acar and Kaliski 1996. The multiplication and the reduction share one
//! inner loop; one carry word C runs from the reduction product of word j
//! into the multiplication product of word j+1 (the dependency Itoh's form
//! in [`super::itoh`] removes):
//!
//! ```text
//! for i in 0..s:
//!     (C, S) = t_0 + a_0 b_i;  ADD(t_1, C);  m = S n0' mod W;  (C, S) = S + m n_0
//!     for j in 1..s:
//!         (C, S) = t_j + a_j b_i + C;  ADD(t_{j+1}, C)
//!         (C, S) = S + m n_j;          t_{j-1} = S
//!     (C, S) = t_s + C;  t_{s-1} = S;  t_s = t_{s+1} + C;  t_{s+1} = 0
//! if t >= N: t = t - N
//! ```
//!
//! Koç's `ADD(t_{j+1}, C)` may carry on into t_{j+2}; that carry is held in
//! one bit `p` and added by the next ADD, which is the next write to t_{j+2}.

use crate::limb::{adc, mac, reduce_once};

/// `out = a * b * R^-1 mod n`, fully reduced.
///
/// Preconditions: `a, b < n`; `out`, `a`, `b`, `n` of length `s`; `scratch` at
/// least `s + 2` limbs; `n0 = -n^-1 mod 2^64`.
///
/// ```
/// use redc::mont::{MontContext, fios};
/// let ctx = MontContext::new(&[u64::MAX, u64::MAX >> 1]).unwrap(); // N = 2^127 - 1, R = 2^128
/// let a = ctx.to_mont(&[3]).unwrap();
/// let b = ctx.to_mont(&[u64::MAX, 1]).unwrap(); // 2^65 - 1
/// let mut out = [0u64; 2];
/// fios::mont_mul(&mut out, &a, &b, ctx.modulus(), ctx.n0(), &mut ctx.scratch());
/// // 3 (2^65 - 1) = 5 * 2^64 + (2^64 - 3)
/// assert_eq!(ctx.from_mont(&out).unwrap(), vec![u64::MAX - 2, 5]);
/// ```
pub fn mont_mul(out: &mut [u64], a: &[u64], b: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    let s = n.len();
    assert!(a.len() == s && b.len() == s && out.len() == s && scratch.len() >= s + 2);
    let t = &mut scratch[..s + 2];
    t.fill(0);
    for &bi in b {
        let (sum, c) = mac(t[0], a[0], bi, 0);
        let mut p; // carry out of the last ADD, owed to the word above it
        (t[1], p) = adc(t[1], c, 0);
        let m = sum.wrapping_mul(n0);
        let (_, mut c) = mac(sum, m, n[0], 0);
        for j in 1..s {
            let (sum, c1) = mac(t[j], a[j], bi, c);
            (t[j + 1], p) = adc(t[j + 1], c1, p);
            (t[j - 1], c) = mac(sum, m, n[j], 0);
        }
        let (lo, hi) = adc(t[s], c, 0);
        t[s - 1] = lo;
        t[s] = t[s + 1] + hi + p;
        t[s + 1] = 0;
    }
    out.copy_from_slice(&t[..s]);
    reduce_once(out, t[s], n);
}
