//! Radix-2 (bit-serial) Montgomery multiplication.
//!
//! Papers: McIvor, McLoone and McCanny, "Modified Montgomery Modular Multiplication and RSA Exponentiation Techniques", Algorithm 1 (McIvor et al., radix-2
//! Montgomery); Shand and Vuillemin, "Fast Implementations of RSA Cryptography", Algorithm 6 with beta = 2 (Shand and
//! Vuillemin's Hensel odd division, one quotient bit per step).
//!
//! One step per bit of A, `64 s` steps in all, so that R = 2^(64 s) is the same
//! as the word algorithms' and the results agree:
//!
//! ```text
//! T = 0
//! for i in 0 .. 64s:  T = T + a_i B;  q = T mod 2;  T = (T + q N) / 2
//! ```
//!
//! Invariant: T < 2N after every step (if T < 2N then (T + B + N)/2 < 2N, as
//! B < N), so T fits in s + 1 limbs and one branch-free subtraction reduces it.
//! The bits a_i and q are secret: they become masks, never branches.

use crate::ct::Mask;
use crate::limb::{adc, reduce_once};

/// `out = a * b * 2^(-64 s) mod n`, fully reduced.
///
/// Preconditions: `a, b < n`, `n` odd; `out`, `a`, `b`, `n` of length `s`;
/// `scratch` at least `s + 1` limbs. `n0` is unused (the bit-serial quotient
/// is the low bit of T, because -N^-1 = 1 mod 2).
///
/// ```
/// use redc::mont::{MontContext, bitserial};
/// let ctx = MontContext::new(&[u64::MAX, u64::MAX >> 1]).unwrap(); // N = 2^127 - 1, R = 2^128
/// let a = ctx.to_mont(&[3]).unwrap();
/// let b = ctx.to_mont(&[u64::MAX, 1]).unwrap(); // 2^65 - 1
/// let mut out = [0u64; 2];
/// bitserial::mont_mul(&mut out, &a, &b, ctx.modulus(), ctx.n0(), &mut ctx.scratch());
/// // 3 (2^65 - 1) = 5 * 2^64 + (2^64 - 3)
/// assert_eq!(ctx.from_mont(&out).unwrap(), vec![u64::MAX - 2, 5]);
/// ```
pub fn mont_mul(out: &mut [u64], a: &[u64], b: &[u64], n: &[u64], _n0: u64, scratch: &mut [u64]) {
    let s = n.len();
    assert!(a.len() == s && b.len() == s && out.len() == s && scratch.len() > s);
    let t = &mut scratch[..s + 1];
    t.fill(0);
    for i in 0..64 * s {
        // Loop counter i is public; the bit a_i is not.
        let take_b = Mask::from_bit((a[i / 64] >> (i % 64)) & 1);
        add_masked(t, b, take_b);
        let take_n = Mask::from_bit(t[0] & 1);
        add_masked(t, n, take_n);
        // T is even now; halve it. T + B + N < 4N < 2^(64s + 2) fit in s + 1 limbs.
        for j in 0..s {
            t[j] = (t[j] >> 1) | (t[j + 1] << 63);
        }
        t[s] >>= 1;
    }
    out.copy_from_slice(&t[..s]);
    reduce_once(out, t[s], n);
}

/// `t += x` when `m` is true, over `x.len()` limbs plus the top limb of `t`.
#[inline(always)]
fn add_masked(t: &mut [u64], x: &[u64], m: Mask) {
    let s = x.len();
    let mut carry = 0;
    for j in 0..s {
        (t[j], carry) = adc(t[j], m.select(x[j], 0), carry);
    }
    t[s] = t[s].wrapping_add(carry);
}
