//! Coarsely Integrated Operand Scanning (CIOS) Montgomery multiplication.
//!
//! Paper: Çelebi, Gözütok and Ertaul, "Implementations of Montgomery Multiplication Algorithms in Machine Languages" (Çelebi et al., the five algorithms; CIOS
//! is the variant their tables favour), after Koç, Acar and Kaliski 1996.
//! Per word b_i of B, one pass adds A*b_i, a second pass adds m*N and shifts
//! down one word:
//!
//! ```text
//! for i in 0..s:
//!     t = t + A b_i                      (s + 2 words)
//!     m = t_0 n0' mod W
//!     t = (t + m N) / W
//! if t >= N: t = t - N
//! ```
//!
//! Invariant: after step i, t < A + N (so < 2N for reduced A), which keeps
//! the top word at most 1.

use crate::limb::{adc, mac, reduce_once};

/// `out = a * b * R^-1 mod n`, fully reduced.
///
/// Preconditions: `a, b < n`; `out`, `a`, `b`, `n` of length `s`; `scratch` at
/// least `s + 2` limbs; `n0 = -n^-1 mod 2^64`.
///
/// ```
/// use redc::mont::{MontContext, cios};
/// let ctx = MontContext::new(&[u64::MAX, u64::MAX >> 1]).unwrap(); // N = 2^127 - 1, R = 2^128
/// let a = ctx.to_mont(&[3]).unwrap();
/// let b = ctx.to_mont(&[u64::MAX, 1]).unwrap(); // 2^65 - 1
/// let mut out = [0u64; 2];
/// cios::mont_mul(&mut out, &a, &b, ctx.modulus(), ctx.n0(), &mut ctx.scratch());
/// // 3 (2^65 - 1) = 5 * 2^64 + (2^64 - 3)
/// assert_eq!(ctx.from_mont(&out).unwrap(), vec![u64::MAX - 2, 5]);
/// ```
pub fn mont_mul(out: &mut [u64], a: &[u64], b: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    let s = n.len();
    assert!(a.len() == s && b.len() == s && out.len() == s && scratch.len() >= s + 2);
    let t = &mut scratch[..s + 2];
    t.fill(0);
    for &bi in b {
        let mut c = 0;
        for j in 0..s {
            (t[j], c) = mac(t[j], a[j], bi, c);
        }
        let (lo, hi) = adc(t[s], c, 0);
        t[s] = lo;
        t[s + 1] = hi;

        let m = t[0].wrapping_mul(n0);
        let (_, mut c) = mac(t[0], m, n[0], 0); // low word is 0 by choice of m
        for j in 1..s {
            (t[j - 1], c) = mac(t[j], m, n[j], c);
        }
        let (lo, hi) = adc(t[s], c, 0);
        t[s - 1] = lo;
        t[s] = t[s + 1] + hi;
    }
    out.copy_from_slice(&t[..s]);
    reduce_once(out, t[s], n);
}
