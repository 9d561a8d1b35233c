//! Coarsely Integrated Hybrid Scanning (CIHS) Montgomery multiplication.
//!
//! Paper: Çelebi, Gözütok and Ertaul, "Implementations of Montgomery Multiplication Algorithms in Machine Languages" (Çelebi et al., the five algorithms), after
//! Koç, Acar and Kaliski 1996. The low half of A*B (columns 0..s-1) is formed
//! by operand scanning first; then each reduction pass, after shifting t down
//! one word, adds the one product column that has just reached word s-1:
//!
//! ```text
//! for i in 0..s: t[i..s] += A[0..s-i] b_i              (carries into t_s, t_{s+1})
//! for i in 0..s:
//!     m = t_0 n0' mod W;  t = (t + m N) / W
//!     for j in i+1..s: (C, S) = t_{s-1} + b_j a_{s-j+i};  t_{s-1} = S;  ADD(t_s, C)
//! if t >= N: t = t - N
//! ```
//!
//! Column s+i of A*B sits at word s-1 once t has been divided by W^(i+1).
//! Every term is non-negative and the total is (AB + mN)/R < 2N, so the
//! s + 2 words of t never overflow.

use crate::limb::{adc, mac, reduce_once};

/// `out = a * b * R^-1 mod n`, fully reduced.
///
/// Preconditions: `a, b < n`; `out`, `a`, `b`, `n` of length `s`; `scratch` at
/// least `s + 2` limbs; `n0 = -n^-1 mod 2^64`.
///
/// ```
/// use redc::mont::{MontContext, cihs};
/// let ctx = MontContext::new(&[u64::MAX, u64::MAX >> 1]).unwrap(); // N = 2^127 - 1, R = 2^128
/// let a = ctx.to_mont(&[3]).unwrap();
/// let b = ctx.to_mont(&[u64::MAX, 1]).unwrap(); // 2^65 - 1
/// let mut out = [0u64; 2];
/// cihs::mont_mul(&mut out, &a, &b, ctx.modulus(), ctx.n0(), &mut ctx.scratch());
/// // 3 (2^65 - 1) = 5 * 2^64 + (2^64 - 3)
/// assert_eq!(ctx.from_mont(&out).unwrap(), vec![u64::MAX - 2, 5]);
/// ```
pub fn mont_mul(out: &mut [u64], a: &[u64], b: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    let s = n.len();
    assert!(a.len() == s && b.len() == s && out.len() == s && scratch.len() >= s + 2);
    let t = &mut scratch[..s + 2];
    t.fill(0);
    for i in 0..s {
        let mut c = 0;
        for j in 0..s - i {
            (t[i + j], c) = mac(t[i + j], a[j], b[i], c);
        }
        let hi;
        (t[s], hi) = adc(t[s], c, 0);
        t[s + 1] += hi;
    }
    for i in 0..s {
        let m = t[0].wrapping_mul(n0);
        let (_, mut c) = mac(t[0], m, n[0], 0);
        for j in 1..s {
            (t[j - 1], c) = mac(t[j], m, n[j], c);
        }
        let hi;
        (t[s - 1], hi) = adc(t[s], c, 0);
        t[s] = t[s + 1] + hi;
        t[s + 1] = 0;
        for j in i + 1..s {
            let (lo, c) = mac(t[s - 1], b[j], a[s - j + i], 0);
            t[s - 1] = lo;
            let hi;
            (t[s], hi) = adc(t[s], c, 0);
            t[s + 1] += hi;
        }
    }
    out.copy_from_slice(&t[..s]);
    reduce_once(out, t[s], n);
}
