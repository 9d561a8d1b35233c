//! Whole-number helpers for key generation and key checks, constant time
//! in the *values* of their inputs (their *lengths* are public).
//!
//! Key generation needs a few operations with secret, possibly even
//! moduli (p - 1, lcm(p - 1, q - 1)) where Montgomery arithmetic does not
//! apply: a full product, a bitwise long division, a binary gcd and a word
//! inverse. They run once per key, so they trade speed for simplicity:
//! every loop count is a function of the operand lengths only, and every
//! data-dependent choice is a mask ([`crate::ct::Mask`]).

use crate::ct::Mask;
use crate::limb::{self, adc, mac, sbb};
use zeroize::Zeroize;

/// `a * b`, `a.len() + b.len()` limbs (schoolbook).
///
/// ```
/// use redc::nat::mul;
/// // (2^64 - 1)^2 = 2^128 - 2^65 + 1
/// assert_eq!(mul(&[u64::MAX], &[u64::MAX]), vec![1, u64::MAX - 1]);
/// assert_eq!(mul(&[6, 0], &[7]), vec![42, 0, 0]);
/// ```
pub fn mul(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = vec![0u64; a.len() + b.len()];
    for (i, &bi) in b.iter().enumerate() {
        let mut c = 0;
        for (j, &aj) in a.iter().enumerate() {
            (out[i + j], c) = mac(out[i + j], aj, bi, c);
        }
        out[i + a.len()] = c;
    }
    out
}

/// `(x / m, x mod m)`: quotient in `x.len()` limbs, remainder in `m.len()`
/// limbs. Bitwise long division, `64 x.len()` steps of `m.len() + 1` limbs.
///
/// Precondition: `m != 0` (an internal invariant: callers pass moduli they
/// built). Constant time in the values of `x` and `m`.
///
/// ```
/// use redc::nat::div_rem;
/// assert_eq!(div_rem(&[100], &[7]), (vec![14], vec![2]));
/// // 2^64 = 3 * 0x5555_5555_5555_5555 + 1
/// let (q, r) = div_rem(&[0, 1], &[3]);
/// assert_eq!(q, vec![0x5555_5555_5555_5555, 0]);
/// assert_eq!(r, vec![1]);
/// ```
pub fn div_rem(x: &[u64], m: &[u64]) -> (Vec<u64>, Vec<u64>) {
    assert!(!limb::ct_is_zero(m).leak_bool(), "division by zero");
    let s = m.len();
    let mut q = vec![0u64; x.len()];
    // r < m always; r has one spare limb so that 2r + bit never overflows.
    let mut r = vec![0u64; s + 1];
    // Sized once: a push onto m.to_vec() would reallocate and free a copy of m.
    let mut m_ext = vec![0u64; s + 1];
    m_ext[..s].copy_from_slice(m);
    let mut diff = vec![0u64; s + 1];
    for i in (0..64 * x.len()).rev() {
        let bit = (x[i / 64] >> (i % 64)) & 1;
        // r = 2 r + bit
        let mut carry = bit;
        for limb in r.iter_mut() {
            let top = *limb >> 63;
            *limb = (*limb << 1) | carry;
            carry = top;
        }
        // if r >= m: r -= m, quotient bit 1
        let borrow = limb::sub(&mut diff, &r, &m_ext);
        let ge = Mask::is_zero(borrow);
        limb::cond_assign(&mut r, ge, &diff);
        q[i / 64] |= ge.select(1, 0) << (i % 64);
    }
    // m and the last trial difference may be secret (p - 1, a prime).
    m_ext.zeroize();
    diff.zeroize();
    r[s] = 0;
    r.truncate(s);
    (q, r)
}

/// `x mod m` (see [`div_rem`]).
///
/// ```
/// assert_eq!(redc::nat::rem(&[100, 0], &[7]), vec![2]);
/// ```
pub fn rem(x: &[u64], m: &[u64]) -> Vec<u64> {
    let (mut q, r) = div_rem(x, m);
    q.zeroize(); // the quotient of secrets is secret too
    r
}

/// `x >> 1` in place.
fn shr1(x: &mut [u64]) {
    for i in 0..x.len() {
        let next = if i + 1 < x.len() { x[i + 1] } else { 0 };
        x[i] = (x[i] >> 1) | (next << 63);
    }
}

/// `x << 1` in place; the top bit is dropped.
fn shl1(x: &mut [u64]) {
    let mut carry = 0;
    for limb in x.iter_mut() {
        let top = *limb >> 63;
        *limb = (*limb << 1) | carry;
        carry = top;
    }
}

/// Divide out the factors of two of `x > 0`: returns `(x / 2^t, t)` with
/// `t` as a count (secret; it is only used through masks by the caller).
fn odd_part(x: &[u64]) -> (Vec<u64>, u64) {
    let mut y = x.to_vec();
    let mut t = 0u64;
    let mut shifted = y.clone();
    for _ in 0..64 * x.len() {
        let even = Mask::is_zero(y[0] & 1) & !limb::ct_is_zero(&y);
        shifted.copy_from_slice(&y);
        shr1(&mut shifted);
        limb::cond_assign(&mut y, even, &shifted);
        t += even.select(1, 0);
    }
    shifted.zeroize();
    (y, t)
}

/// `gcd(a, b)` for `a, b > 0`, in `max(a.len(), b.len())` limbs.
///
/// gcd(a, b) = 2^min(ta, tb) gcd(a', b') with a', b' the odd parts; the odd
/// gcd comes from the binary algorithm in a fixed `64 (la + lb)` steps:
/// with b odd, if a is odd replace (a, b) by (|a - b|, min(a, b)); halve a.
/// Each step shrinks bits(a) + bits(b) by at least one until a = 0.
///
/// ```
/// use redc::nat::gcd;
/// assert_eq!(gcd(&[12], &[18]), vec![6]);
/// // gcd(2^64, 6) = 2, in two limbs.
/// assert_eq!(gcd(&[0, 1], &[6]), vec![2, 0]);
/// ```
pub fn gcd(a: &[u64], b: &[u64]) -> Vec<u64> {
    let len = a.len().max(b.len());
    let a = zeroize::Zeroizing::new(limb::resize(a, len).expect("fits"));
    let b = zeroize::Zeroizing::new(limb::resize(b, len).expect("fits"));
    let (a, ta) = odd_part(&a);
    let (mut v, tb) = odd_part(&b);
    let mut u = a;
    let mut diff = vec![0u64; len];
    let mut swap_tmp = vec![0u64; len];
    let mut negated = vec![0u64; len];
    let zero = vec![0u64; len];
    for _ in 0..128 * len {
        let u_odd = Mask::from_bit(u[0] & 1);
        // d = u - v; if negative, the new pair is (v - u, u).
        let borrow = limb::sub(&mut diff, &u, &v);
        let neg = Mask::from_bit(borrow) & u_odd;
        // v = min(u, v) when swapping
        swap_tmp.copy_from_slice(&u);
        limb::cond_assign(&mut v, neg, &swap_tmp);
        // u = |u - v| when u is odd
        limb::sub(&mut negated, &zero, &diff);
        limb::cond_assign(&mut diff, neg, &negated);
        limb::cond_assign(&mut u, u_odd, &diff);
        shr1(&mut u);
    }
    // v = odd gcd; multiply by 2^min(ta, tb).
    let (_, ta_lt) = sbb(ta, tb, 0);
    let t = Mask::from_bit(ta_lt).select(ta, tb); // min(ta, tb), no branch
    let mut g = v;
    let mut doubled = vec![0u64; len];
    for i in 0..64 * len as u64 {
        let go = Mask::from_bit(((i.wrapping_sub(t)) >> 63) & 1); // i < t
        doubled.copy_from_slice(&g);
        shl1(&mut doubled);
        limb::cond_assign(&mut g, go, &doubled);
    }
    // Key generation's operands (p - 1, q - 1) are secret.
    for t in [&mut u, &mut diff, &mut swap_tmp, &mut negated, &mut doubled] {
        t.zeroize();
    }
    g
}

/// `u^-1 mod m` for odd `m > 1` and `u < m`, or `None` when gcd(u, m) != 1.
/// Constant time in `u`: the binary extended algorithm in a fixed 128 steps.
/// (Whether an inverse exists is revealed: callers reject such candidates.)
///
/// ```
/// use redc::nat::inv_mod_word;
/// assert_eq!(inv_mod_word(3, 7), Some(5)); // 3 * 5 = 15 = 1 mod 7
/// assert_eq!(inv_mod_word(6, 9), None); // gcd(6, 9) = 3
/// ```
pub fn inv_mod_word(u: u64, m: u64) -> Option<u64> {
    assert!(m & 1 == 1 && m > 1);
    // Invariants: a = x u (mod m), b = y u (mod m), b odd.
    let (mut a, mut b) = (u, m);
    let (mut x, mut y) = (1u64, 0u64);
    let half = |v: u64| -> u64 {
        // v / 2 mod m: (v + (v odd) m) / 2 without overflow.
        let odd = Mask::from_bit(v & 1);
        let (sum, carry) = adc(v, odd.select(m, 0), 0);
        (sum >> 1) | (carry << 63)
    };
    let sub_mod = |p: u64, q: u64| -> u64 {
        let (d, borrow) = sbb(p, q, 0);
        d.wrapping_add(Mask::from_bit(borrow).select(m, 0))
    };
    for _ in 0..128 {
        let a_odd = Mask::from_bit(a & 1);
        let (_, lt) = sbb(a, b, 0);
        let swap = a_odd & Mask::from_bit(lt);
        let (na, nb) = (swap.select(b, a), swap.select(a, b));
        let (nx, ny) = (swap.select(y, x), swap.select(x, y));
        (a, b, x, y) = (na, nb, nx, ny);
        a = a_odd.select(a.wrapping_sub(b), a);
        x = a_odd.select(sub_mod(x, y), x);
        a >>= 1;
        x = half(x);
    }
    // a = 0 now and b = gcd(u, m); y u = b (mod m).
    // y stays in [0, m) through sub_mod and half.
    if b == 1 { Some(y) } else { None }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_inverse() {
        for m in [3u64, 5, 9, 65537, 0xffff_ffff_ffff_ffc5, u64::MAX] {
            for u in [1u64, 2, 3, 4, 1000, m - 1, m / 2] {
                let u = u % m;
                let got = inv_mod_word(u, m);
                let g = {
                    let (mut a, mut b) = (u, m);
                    while b != 0 {
                        (a, b) = (b, a % b);
                    }
                    a
                };
                match got {
                    Some(inv) => assert_eq!(((u as u128 * inv as u128) % m as u128), 1, "u={u} m={m}"),
                    None => assert_ne!(g, 1, "u={u} m={m}"),
                }
            }
        }
    }
}
