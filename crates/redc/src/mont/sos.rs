//! Separated Operand Scanning (SOS) Montgomery multiplication.
//!
//! Paper: Çelebi, Gözütok and Ertaul, "Implementations of Montgomery Multiplication Algorithms in Machine Languages" (Çelebi et al., section on the five
//! algorithms), after Koç, Acar and Kaliski 1996, "SOS". The product A*B is
//! formed completely (2s words), then reduced one word at a time:
//!
//! ```text
//! t = A * B                                  (2s words)
//! for i in 0..s: m = t_i n0' mod W; t = t + m N W^i     (t_i becomes 0)
//! u = t / W^s;  if u >= N: u = u - N
//! ```
//!
//! Koç's `ADD(t[i+s], C)` propagates a carry through the upper words; here the
//! carry out of word `i+s` is held in one bit and added at the next row,
//! which writes word `i+s+1` last. Same arithmetic, no propagation loop.
//! [`redc`] is shared with the dedicated squaring.

use crate::limb::{adc, mac, reduce_once};

/// `out = a * b * R^-1 mod n`, fully reduced.
///
/// Preconditions: `a, b < n`; `out`, `a`, `b`, `n` of length `s`; `scratch` at
/// least `2s + 1` limbs; `n0 = -n^-1 mod 2^64`.
///
/// ```
/// use redc::mont::{MontContext, sos};
/// let ctx = MontContext::new(&[u64::MAX, u64::MAX >> 1]).unwrap(); // N = 2^127 - 1, R = 2^128
/// let a = ctx.to_mont(&[3]).unwrap();
/// let b = ctx.to_mont(&[u64::MAX, 1]).unwrap(); // 2^65 - 1
/// let mut out = [0u64; 2];
/// sos::mont_mul(&mut out, &a, &b, ctx.modulus(), ctx.n0(), &mut ctx.scratch());
/// // 3 (2^65 - 1) = 5 * 2^64 + (2^64 - 3)
/// assert_eq!(ctx.from_mont(&out).unwrap(), vec![u64::MAX - 2, 5]);
/// ```
pub fn mont_mul(out: &mut [u64], a: &[u64], b: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    let s = n.len();
    assert!(a.len() == s && b.len() == s && out.len() == s && scratch.len() > 2 * s);
    let t = &mut scratch[..2 * s + 1];
    t.fill(0);
    for i in 0..s {
        let mut c = 0;
        for j in 0..s {
            (t[i + j], c) = mac(t[i + j], a[j], b[i], c);
        }
        t[i + s] = c;
    }
    redc(out, t, n, n0);
}

/// Montgomery reduction of a double-length value: `out = t * R^-1 mod n`.
///
/// Preconditions: `t.len() == 2s + 1`, `t[2s] == 0`, `t < n * R` (true for a
/// product of two reduced operands). `t` is overwritten.
///
/// ```
/// use redc::{mont::{MontContext, sos}, nat};
/// let ctx = MontContext::new(&[u64::MAX, u64::MAX >> 1]).unwrap(); // N = 2^127 - 1
/// let a = ctx.to_mont(&[3]).unwrap();
/// let b = ctx.to_mont(&[u64::MAX, 1]).unwrap();
/// let mut t = nat::mul(&a, &b); // 2s limbs, below N R
/// t.push(0); // the 2s + 1 limbs redc works in
/// let mut out = [0u64; 2];
/// sos::redc(&mut out, &mut t, ctx.modulus(), ctx.n0());
/// assert_eq!(ctx.from_mont(&out).unwrap(), vec![u64::MAX - 2, 5]);
/// ```
pub fn redc(out: &mut [u64], t: &mut [u64], n: &[u64], n0: u64) {
    let s = n.len();
    assert!(t.len() == 2 * s + 1 && out.len() == s);
    let mut extra = 0; // carry out of word i+s, owed to word i+s+1
    for i in 0..s {
        let m = t[i].wrapping_mul(n0);
        let mut c = 0;
        for j in 0..s {
            (t[i + j], c) = mac(t[i + j], m, n[j], c);
        }
        (t[i + s], extra) = adc(t[i + s], c, extra);
    }
    // (t + mN)/R < (nR + nR)/R = 2n: the top is at most 1.
    out.copy_from_slice(&t[s..2 * s]);
    reduce_once(out, extra, n);
}
