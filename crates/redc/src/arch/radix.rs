//! Almost-Montgomery arithmetic in radix 2^B, for any digit width B from 16
//! to 60 bits: the digit conversions, the almost-Montgomery product and the
//! constants that the vector kernels' portable twins share
//! (`portable52` for the IFMA kernels, B = 52; `portable28` for the AVX2
//! kernels, B = 28).
//!
//! Numbers are little-endian vectors of B-bit digits held in `u64`. For a
//! modulus m of `d` digits, R = 2^(B d) and 4m < R.
//!
//! # Almost-Montgomery multiplication
//!
//! Montgomery, "Modular multiplication without trial division" (1985), with
//! the bound of Gueron's almost-Montgomery form: `amm(a, b) = (a b + Y m) / R`
//! where Y = sum y_i 2^(B i) is built digit by digit, `y_i = t_0 k0 mod 2^B`
//! with `k0 = -m^-1 mod 2^B`. With a, b < 2m and Y < R:
//!
//! ```text
//! amm(a, b) < (4 m^2 + R m) / R = m (4m / R + 1) < 2m      since 4m < R.
//! ```
//!
//! Y is the unique value below R with a b + Y m = 0 mod R, so every correct
//! digit-serial evaluation (any lane layout, any carry schedule, any
//! redundant form of the inputs' digits) gives the same result once
//! normalised: this is what makes the twins exact.
//!
//! Modulus values are public or secret (CRT primes) and operands secret;
//! nothing here branches on or indexes memory by either, only by sizes.

use zeroize::Zeroize;

use crate::ct::Mask;

/// The digit mask 2^B - 1.
pub const fn mask<const B: u32>() -> u64 {
    (1 << B) - 1
}

/// Little-endian u64 limbs to `d` B-bit digits (bits beyond B d dropped).
pub fn to_digits<const B: u32>(x: &[u64], d: usize) -> Vec<u64> {
    let mut out = vec![0u64; d];
    for (i, o) in out.iter_mut().enumerate() {
        let bit = i * B as usize;
        let (w, s) = (bit / 64, bit % 64);
        let lo = x.get(w).copied().unwrap_or(0) >> s;
        let hi = if s > 64 - B as usize {
            x.get(w + 1).copied().unwrap_or(0) << (64 - s)
        } else {
            0
        };
        *o = (lo | hi) & mask::<B>();
    }
    out
}

/// B-bit digits (each below 2^B) to `limbs` u64 limbs (bits beyond dropped).
pub fn from_digits<const B: u32>(x: &[u64], limbs: usize) -> Vec<u64> {
    let mut out = vec![0u64; limbs];
    for (i, &dg) in x.iter().enumerate() {
        let bit = i * B as usize;
        let (w, s) = (bit / 64, bit % 64);
        if w < limbs {
            out[w] |= dg << s;
        }
        if s > 64 - B as usize && w + 1 < limbs {
            out[w + 1] |= dg >> (64 - s);
        }
    }
    out
}

/// `-m^-1 mod 2^B` for odd `m0` (the low digit or limb of m).
pub fn neg_inv<const B: u32>(m0: u64) -> u64 {
    // Newton: x = x (2 - m x) doubles the correct low bits; x = m is right mod 8.
    let mut x = m0;
    for _ in 0..6 {
        x = x.wrapping_mul(2u64.wrapping_sub(m0.wrapping_mul(x)));
    }
    x.wrapping_neg() & mask::<B>()
}

/// x = 2 x mod m for x < m (digits); constant time in x and m.
fn double_mod<const B: u32>(x: &mut [u64], m: &[u64]) {
    let mut carry = 0;
    for dg in x.iter_mut() {
        let v = (*dg << 1) | carry;
        carry = v >> B;
        *dg = v & mask::<B>();
    }
    // 2x >= m exactly when the doubling carried out or x - m does not borrow.
    let mut t = x.to_vec();
    let borrow = sub_in_place::<B>(&mut t, m);
    select_into(x, Mask::from_bit(carry | (borrow ^ 1)), &t);
    t.zeroize();
}

/// x = t where `take` is true; no branch.
fn select_into(x: &mut [u64], take: Mask, t: &[u64]) {
    let w = take.word();
    for (xi, &ti) in x.iter_mut().zip(t) {
        *xi = (*xi & !w) | (ti & w);
    }
}

/// x -= y mod 2^(B d); returns the borrow (0 or 1). Constant time.
fn sub_in_place<const B: u32>(x: &mut [u64], y: &[u64]) -> u64 {
    let mut borrow = 0u64;
    for (xi, &yi) in x.iter_mut().zip(y) {
        let v = xi.wrapping_sub(yi).wrapping_sub(borrow);
        borrow = v >> 63;
        *xi = v & mask::<B>();
    }
    borrow
}

/// R^2 mod m with R = 2^(B d): 2^(B d + s) mod m by doubling, then j
/// almost-Montgomery squarings, each mapping 2^(B d + e) to 2^(B d + 2e),
/// where B d = s 2^j (j = trailing zeros of B d). `bits` is m's bit length
/// (2^(bits - 1) < m, where the doubling starts). The step counts depend on
/// the sizes only; every step is constant time in m.
pub fn r_squared<const B: u32>(m: &[u64], k0: u64, bits: usize) -> Vec<u64> {
    let d = m.len();
    let total = B as usize * d;
    let j = total.trailing_zeros() as usize;
    let s = total >> j;
    let mut x = vec![0u64; d];
    x[(bits - 1) / B as usize] = 1 << ((bits - 1) % B as usize);
    for _ in (bits - 1)..(total + s) {
        double_mod::<B>(&mut x, m);
    }
    let mut t = vec![0u64; d];
    for _ in 0..j {
        amm_mul::<B>(&mut t, &x, &x, m, k0);
        x.copy_from_slice(&t);
    }
    // x < 2m: one constant-time conditional subtraction.
    let mut t = x.clone();
    let borrow = sub_in_place::<B>(&mut t, m);
    select_into(&mut x, Mask::from_bit(borrow ^ 1), &t);
    t.zeroize();
    x
}

/// Almost-Montgomery product `out = (a b + Y m) / R`, normalised digits.
/// Preconditions: `a, b < 2m` as digits below 2^B, all of length d, 4m < R.
/// Postcondition: `out < 2m`. Constant time in a and b.
pub fn amm_mul<const B: u32>(out: &mut [u64], a: &[u64], b: &[u64], m: &[u64], k0: u64) {
    let d = m.len();
    assert!(a.len() == d && b.len() == d && out.len() == d);
    // t holds d + 2 normalised digits; the running value stays below 2^(B (d+1)).
    let mut t = vec![0u64; d + 2];
    for &bi in b {
        let mut c: u128 = 0;
        for j in 0..d {
            let s = t[j] as u128 + a[j] as u128 * bi as u128 + c;
            t[j] = s as u64 & mask::<B>();
            c = s >> B;
        }
        let s = t[d] as u128 + c;
        t[d] = s as u64 & mask::<B>();
        t[d + 1] += (s >> B) as u64;
        let y = t[0].wrapping_mul(k0) & mask::<B>();
        let mut c: u128 = 0;
        for j in 0..d {
            let s = t[j] as u128 + m[j] as u128 * y as u128 + c;
            t[j] = s as u64 & mask::<B>();
            c = s >> B;
        }
        let s = t[d] as u128 + c;
        t[d] = s as u64 & mask::<B>();
        t[d + 1] += (s >> B) as u64;
        debug_assert_eq!(t[0], 0);
        t.copy_within(1.., 0);
        t[d + 1] = 0;
    }
    debug_assert_eq!(t[d], 0);
    out.copy_from_slice(&t[..d]);
    t.zeroize();
}

/// y = y - m when y >= m, for y <= m (digits); constant time.
pub fn final_reduce<const B: u32>(m: &[u64], y: &mut [u64]) {
    let mut t = y.to_vec();
    let borrow = sub_in_place::<B>(&mut t, m);
    let keep = Mask::from_bit(borrow).word();
    for (yi, &ti) in y.iter_mut().zip(&t) {
        *yi = (*yi & keep) | (ti & !keep);
    }
    t.zeroize();
}

/// Exponent window width in bits (32-entry table).
pub const WINDOW: usize = 5;

/// The 5-bit window of `exp` (u64 limbs) starting at bit `pos` (public).
pub fn window(exp: &[u64], pos: usize) -> usize {
    window_of(exp, pos, WINDOW)
}

/// The `width`-bit window (1..=8, public) of `exp` at bit `pos` (public).
pub fn window_of(exp: &[u64], pos: usize, width: usize) -> usize {
    let (w, s) = (pos / 64, pos % 64);
    let lo = exp.get(w).copied().unwrap_or(0) >> s;
    let hi = if s > 64 - width {
        exp.get(w + 1).copied().unwrap_or(0) << (64 - s)
    } else {
        0
    };
    ((lo | hi) & ((1 << width) - 1)) as usize
}

/// Number of windows for an exponent of `limbs` u64 limbs (public).
pub fn windows_for_limbs(limbs: usize) -> usize {
    windows_of(limbs, WINDOW)
}

/// Number of `width`-bit windows for an exponent of `limbs` u64 limbs (public).
pub fn windows_of(limbs: usize, width: usize) -> usize {
    (64 * limbs).div_ceil(width).max(1)
}

/// Constant-time table read: every entry is read, the one at `idx` kept.
pub fn gather(out: &mut [u64], table: &[Vec<u64>], idx: usize) {
    out.fill(0);
    for (k, entry) in table.iter().enumerate() {
        let m = Mask::is_zero((k ^ idx) as u64).word();
        for (o, &e) in out.iter_mut().zip(entry) {
            *o |= e & m;
        }
    }
}

/// The almost-reduced Montgomery-domain table `T[k] = base^k R mod m` (< 2m)
/// for m in d digits with `k0` and `rr` = R^2 mod m, built in the order the
/// vector code builds it: `T[0] = amm(R^2, 1)`, `T[1] = amm(base, R^2)`,
/// then `T[k] = amm(T[k/2], T[k/2])` for even k and `amm(T[k-1], T[1])` for
/// odd k.
pub fn table<const B: u32>(m: &[u64], k0: u64, rr: &[u64], base_digits: &[u64]) -> Vec<Vec<u64>> {
    let d = m.len();
    let mut one = vec![0u64; d];
    one[0] = 1;
    let mut t = vec![vec![0u64; d]; 1 << WINDOW];
    amm_mul::<B>(&mut t[0], rr, &one, m, k0);
    amm_mul::<B>(&mut t[1], base_digits, rr, m, k0);
    for k in 2..(1 << WINDOW) {
        let mut x = vec![0u64; d];
        if k % 2 == 0 {
            amm_mul::<B>(&mut x, &t[k / 2], &t[k / 2], m, k0);
        } else {
            amm_mul::<B>(&mut x, &t[k - 1], &t[1], m, k0);
        }
        t[k] = x;
    }
    t
}

/// `base^exp mod m`, fully reduced, as `limbs` u64 limbs: fixed 5-bit
/// windows from the top, 5 squarings and one table multiplication per
/// window. `base < m` (u64 limbs); exp's length is public, its bits secret.
pub fn pow<const B: u32>(
    m: &[u64],
    k0: u64,
    rr: &[u64],
    limbs: usize,
    base: &[u64],
    exp: &[u64],
) -> Vec<u64> {
    let d = m.len();
    let mut b = to_digits::<B>(base, d);
    let mut t = table::<B>(m, k0, rr, &b);
    let nw = windows_for_limbs(exp.len());
    let mut x = vec![0u64; d];
    let mut y = vec![0u64; d];
    let mut g = vec![0u64; d];
    gather(&mut x, &t, window(exp, (nw - 1) * WINDOW));
    for w in (0..nw - 1).rev() {
        for _ in 0..WINDOW {
            amm_mul::<B>(&mut y, &x, &x, m, k0);
            x.copy_from_slice(&y);
        }
        gather(&mut g, &t, window(exp, w * WINDOW));
        amm_mul::<B>(&mut y, &x, &g, m, k0);
        x.copy_from_slice(&y);
    }
    let out = from_mont::<B>(m, k0, limbs, &x);
    for v in t.iter_mut().chain([&mut x, &mut y, &mut g, &mut b]) {
        v.zeroize();
    }
    out
}

/// `x R^-1 mod m` fully reduced, as `limbs` u64 limbs, from an
/// almost-reduced x < 2m in normalised digits.
pub fn from_mont<const B: u32>(m: &[u64], k0: u64, limbs: usize, x: &[u64]) -> Vec<u64> {
    let mut one = vec![0u64; m.len()];
    one[0] = 1;
    let mut y = vec![0u64; m.len()];
    amm_mul::<B>(&mut y, x, &one, m, k0);
    final_reduce::<B>(m, &mut y);
    let out = from_digits::<B>(&y, limbs);
    y.zeroize();
    out
}

/// Digits in a redundant form (each below 2^63) carried into B-bit digits,
/// in place; returns the carry out of the top digit. Constant time.
pub fn normalize<const B: u32>(x: &mut [u64]) -> u64 {
    let mut carry = 0u64;
    for dg in x.iter_mut() {
        let v = *dg + carry;
        *dg = v & mask::<B>();
        carry = v >> B;
    }
    carry
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_round_trip_in_both_radices() {
        let x = [0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210, 0x1];
        assert_eq!(from_digits::<52>(&to_digits::<52>(&x, 4), 3), x);
        assert_eq!(from_digits::<28>(&to_digits::<28>(&x, 7), 3), x);
        // 129 bits in 28-bit digits: digit 4 holds bits 112..128.
        assert_eq!(
            to_digits::<28>(&x, 5)[4],
            (0xfedc_ba98_7654_3210u64 >> 48) | (1 << 16)
        );
    }

    /// amm and pow in both radices the twins use, against num-bigint.
    fn amm_and_pow_match_bigint<const B: u32>() {
        use num_bigint::BigUint;
        let m_limbs = [
            0x9e37_79b9_7f4a_7c15,
            0xf39c_c060_5ced_c835,
            0x8000_0000_0000_1234,
        ];
        let m = BigUint::from_slice(&[
            0x7f4a_7c15,
            0x9e37_79b9,
            0x5ced_c835,
            0xf39c_c060,
            0x1234,
            0x8000_0000,
        ]);
        let bits = 192;
        let d = (bits + 2usize).div_ceil(B as usize);
        let md = to_digits::<B>(&m_limbs, d);
        let k0 = neg_inv::<B>(md[0]);
        let rr = r_squared::<B>(&md, k0, bits);
        let r = BigUint::from(1u8) << (B as usize * d);
        assert_eq!(from_big::<B>(&rr, d), (&r * &r) % &m);
        let r_inv = r.modinv(&m).unwrap();
        let two_m: BigUint = &m << 1;
        for (a, b) in [(&two_m - 1u8, &two_m - 2u8), (BigUint::from(3u8), &m - 1u8)] {
            let mut out = vec![0u64; d];
            amm_mul::<B>(&mut out, &digits_of::<B>(&a, d), &digits_of::<B>(&b, d), &md, k0);
            let got = from_big::<B>(&out, d);
            assert!(got < two_m);
            assert_eq!(got % &m, (&a * &b * &r_inv) % &m);
        }
        let base = &m - 5u8;
        let e = [0xdead_beef_0123_4567u64, 0x77];
        let got = pow::<B>(&md, k0, &rr, 3, &base.to_u64_digits(), &e);
        let e_big = BigUint::from_slice(&[0x0123_4567, 0xdead_beef, 0x77]);
        assert_eq!(
            BigUint::from_slice(
                &got.iter()
                    .flat_map(|&l| [l as u32, (l >> 32) as u32])
                    .collect::<Vec<_>>()
            ),
            base.modpow(&e_big, &m)
        );
    }

    fn digits_of<const B: u32>(x: &num_bigint::BigUint, d: usize) -> Vec<u64> {
        to_digits::<B>(&x.to_u64_digits(), d)
    }

    fn from_big<const B: u32>(x: &[u64], d: usize) -> num_bigint::BigUint {
        let limbs = from_digits::<B>(x, (B as usize * d).div_ceil(64));
        num_bigint::BigUint::from_slice(
            &limbs
                .iter()
                .flat_map(|&l| [l as u32, (l >> 32) as u32])
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn amm_and_pow_match_bigint_in_radix_2_28_and_2_52() {
        amm_and_pow_match_bigint::<28>();
        amm_and_pow_match_bigint::<52>();
    }

    #[test]
    fn normalize_carries_into_digits() {
        let mut x = [(1 << 28) + 5, (1 << 29) + 1, 0];
        assert_eq!(normalize::<28>(&mut x), 0);
        assert_eq!(x, [5, 2, 2]);
    }
}
