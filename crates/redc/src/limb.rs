//! Multi-limb arithmetic on little-endian `u64` limbs.
//!
//! A number is a slice `x` with value `sum x[i] * 2^(64 i)`. Every function
//! here that takes limb *values* runs in time that depends only on the slice
//! lengths (public), never on the values (possibly secret): no branch and no
//! memory index is derived from a limb. The exceptions carry `_vartime` in
//! their name and are for public numbers only (moduli, exponents of public
//! keys, printing).

use crate::ct::Mask;
use crate::error::Error;

/// Bits per limb.
///
/// ```
/// assert_eq!(redc::limb::LIMB_BITS, u64::BITS as usize);
/// ```
pub const LIMB_BITS: usize = 64;

/// `(lo, hi)` of `acc + x * y + carry`. Never overflows: at most
/// `(2^64-1) + (2^64-1)^2 + (2^64-1) = 2^128 - 1`.
///
/// ```
/// use redc::limb::mac;
/// assert_eq!(mac(1, 2, 3, 4), (11, 0));
/// // The largest inputs give exactly 2^128 - 1.
/// assert_eq!(mac(u64::MAX, u64::MAX, u64::MAX, u64::MAX), (u64::MAX, u64::MAX));
/// ```
#[inline(always)]
pub fn mac(acc: u64, x: u64, y: u64, carry: u64) -> (u64, u64) {
    let t = (acc as u128) + (x as u128) * (y as u128) + (carry as u128);
    (t as u64, (t >> 64) as u64)
}

/// `(sum, carry)` of `a + b + carry`, with `carry <= 1` in and out.
///
/// ```
/// use redc::limb::adc;
/// assert_eq!(adc(2, 3, 1), (6, 0));
/// assert_eq!(adc(u64::MAX, 1, 0), (0, 1));
/// ```
#[inline(always)]
pub fn adc(a: u64, b: u64, carry: u64) -> (u64, u64) {
    let t = (a as u128) + (b as u128) + (carry as u128);
    (t as u64, (t >> 64) as u64)
}

/// `(difference, borrow)` of `a - b - borrow`, with `borrow <= 1` in and out.
///
/// ```
/// use redc::limb::sbb;
/// assert_eq!(sbb(5, 3, 1), (1, 0));
/// assert_eq!(sbb(0, 1, 0), (u64::MAX, 1));
/// ```
#[inline(always)]
pub fn sbb(a: u64, b: u64, borrow: u64) -> (u64, u64) {
    let t = (a as u128).wrapping_sub(b as u128).wrapping_sub(borrow as u128);
    (t as u64, ((t >> 64) as u64) & 1)
}

/// `out = a + b mod 2^(64 len)`; returns the carry (0 or 1).
/// Precondition: `a`, `b` and `out` have the same length.
///
/// ```
/// use redc::limb::add;
/// let mut out = [0u64; 2];
/// // (2^64 - 1) + 1 = 2^64: the carry moves into the second limb.
/// assert_eq!(add(&mut out, &[u64::MAX, 0], &[1, 0]), 0);
/// assert_eq!(out, [0, 1]);
/// // 2^127 + 2^127 wraps to 0 with a carry out.
/// assert_eq!(add(&mut out, &[0, 1 << 63], &[0, 1 << 63]), 1);
/// assert_eq!(out, [0, 0]);
/// ```
pub fn add(out: &mut [u64], a: &[u64], b: &[u64]) -> u64 {
    assert!(a.len() == out.len() && b.len() == out.len());
    let mut carry = 0;
    for i in 0..out.len() {
        (out[i], carry) = adc(a[i], b[i], carry);
    }
    carry
}

/// `x += y mod 2^(64 len)`; returns the carry. Same lengths.
///
/// ```
/// use redc::limb::add_assign;
/// let mut x = [u64::MAX, 7];
/// assert_eq!(add_assign(&mut x, &[1, 0]), 0);
/// assert_eq!(x, [0, 8]);
/// ```
pub fn add_assign(x: &mut [u64], y: &[u64]) -> u64 {
    assert_eq!(x.len(), y.len());
    let mut carry = 0;
    for (xi, &yi) in x.iter_mut().zip(y) {
        (*xi, carry) = adc(*xi, yi, carry);
    }
    carry
}

/// `out = a - b mod 2^(64 len)`; returns the borrow (0 or 1). Same lengths.
///
/// ```
/// use redc::limb::sub;
/// let mut out = [0u64; 2];
/// // 2^64 - 1, with a borrow from the second limb.
/// assert_eq!(sub(&mut out, &[0, 1], &[1, 0]), 0);
/// assert_eq!(out, [u64::MAX, 0]);
/// // 0 - 1 wraps to 2^128 - 1 with a borrow out.
/// assert_eq!(sub(&mut out, &[0, 0], &[1, 0]), 1);
/// assert_eq!(out, [u64::MAX, u64::MAX]);
/// ```
pub fn sub(out: &mut [u64], a: &[u64], b: &[u64]) -> u64 {
    assert!(a.len() == out.len() && b.len() == out.len());
    let mut borrow = 0;
    for i in 0..out.len() {
        (out[i], borrow) = sbb(a[i], b[i], borrow);
    }
    borrow
}

/// `x -= y mod 2^(64 len)`; returns the borrow. Same lengths.
///
/// ```
/// use redc::limb::sub_assign;
/// let mut x = [5, 1];
/// assert_eq!(sub_assign(&mut x, &[6, 0]), 0);
/// assert_eq!(x, [u64::MAX, 0]);
/// ```
pub fn sub_assign(x: &mut [u64], y: &[u64]) -> u64 {
    assert_eq!(x.len(), y.len());
    let mut borrow = 0;
    for (xi, &yi) in x.iter_mut().zip(y) {
        (*xi, borrow) = sbb(*xi, yi, borrow);
    }
    borrow
}

/// True when `a < b`. Same lengths; constant time.
///
/// ```
/// use redc::limb::ct_lt;
/// assert!(ct_lt(&[5, 1], &[0, 2]).leak_bool());
/// assert!(!ct_lt(&[0, 2], &[0, 2]).leak_bool());
/// ```
pub fn ct_lt(a: &[u64], b: &[u64]) -> Mask {
    assert_eq!(a.len(), b.len());
    let mut borrow = 0;
    for (&ai, &bi) in a.iter().zip(b) {
        (_, borrow) = sbb(ai, bi, borrow);
    }
    Mask::from_bit(borrow)
}

/// True when `a == b`. Same lengths; constant time.
///
/// ```
/// use redc::limb::ct_eq;
/// assert!(ct_eq(&[1, 2], &[1, 2]).leak_bool());
/// assert!(!ct_eq(&[1, 2], &[1, 3]).leak_bool());
/// ```
pub fn ct_eq(a: &[u64], b: &[u64]) -> Mask {
    assert_eq!(a.len(), b.len());
    let diff = a.iter().zip(b).fold(0, |acc, (&ai, &bi)| acc | (ai ^ bi));
    Mask::is_zero(diff)
}

/// True when `a == 0`; constant time.
///
/// ```
/// use redc::limb::ct_is_zero;
/// assert!(ct_is_zero(&[0, 0]).leak_bool());
/// assert!(!ct_is_zero(&[0, 1]).leak_bool());
/// ```
pub fn ct_is_zero(a: &[u64]) -> Mask {
    Mask::is_zero(a.iter().fold(0, |acc, &x| acc | x))
}

/// `out = if m { a } else { b }`, limb by limb with masks. Same lengths.
///
/// ```
/// use redc::{ct::Mask, limb::select};
/// let mut out = [0u64; 2];
/// select(&mut out, Mask::TRUE, &[1, 2], &[3, 4]);
/// assert_eq!(out, [1, 2]);
/// select(&mut out, Mask::FALSE, &[1, 2], &[3, 4]);
/// assert_eq!(out, [3, 4]);
/// ```
pub fn select(out: &mut [u64], m: Mask, a: &[u64], b: &[u64]) {
    assert!(a.len() == out.len() && b.len() == out.len());
    for i in 0..out.len() {
        out[i] = m.select(a[i], b[i]);
    }
}

/// `x = y` when `m` is true, else `x` unchanged. Same lengths.
///
/// ```
/// use redc::{ct::Mask, limb::cond_assign};
/// let mut x = [1, 2];
/// cond_assign(&mut x, Mask::FALSE, &[9, 9]);
/// assert_eq!(x, [1, 2]);
/// cond_assign(&mut x, Mask::TRUE, &[9, 9]);
/// assert_eq!(x, [9, 9]);
/// ```
pub fn cond_assign(x: &mut [u64], m: Mask, y: &[u64]) {
    assert_eq!(x.len(), y.len());
    for (xi, &yi) in x.iter_mut().zip(y) {
        *xi = m.select(yi, *xi);
    }
}

/// Subtract `n` from the `(top, x)` value when it is at least `n`, without a
/// branch: the final subtraction of Montgomery multiplication.
///
/// Precondition: `top * 2^(64 len) + x < 2n`, `top <= 1`, `x.len() == n.len()`.
/// Postcondition: `x < n` holds the reduced value.
///
/// ```
/// use redc::limb::reduce_once;
/// let mut x = [300]; // 241 <= 300 < 2 * 241: subtract once
/// reduce_once(&mut x, 0, &[241]);
/// assert_eq!(x, [59]);
/// let mut y = [100]; // already below the modulus: unchanged
/// reduce_once(&mut y, 0, &[241]);
/// assert_eq!(y, [100]);
/// // With the top limb: 2^64 + 5 - (2^64 - 1) = 6.
/// let mut z = [5];
/// reduce_once(&mut z, 1, &[u64::MAX]);
/// assert_eq!(z, [6]);
/// ```
#[inline]
pub fn reduce_once(x: &mut [u64], top: u64, n: &[u64]) {
    assert_eq!(x.len(), n.len());
    // The borrow of x - n says whether x < n; the whole value top*2^(64 len) + x
    // is below n exactly when top == 0 and that borrow is 1.
    let keep = ct_lt(x, n) & Mask::is_zero(top);
    let mut borrow = 0;
    for (xi, &ni) in x.iter_mut().zip(n) {
        (*xi, borrow) = sbb(*xi, (!keep).select(ni, 0), borrow);
    }
}

/// Number of significant bits of a public number (0 for zero).
///
/// ```
/// use redc::limb::bit_len_vartime;
/// assert_eq!(bit_len_vartime(&[255]), 8);
/// assert_eq!(bit_len_vartime(&[0, 1]), 65);
/// assert_eq!(bit_len_vartime(&[0, 0]), 0);
/// ```
pub fn bit_len_vartime(x: &[u64]) -> usize {
    for i in (0..x.len()).rev() {
        if x[i] != 0 {
            return i * LIMB_BITS + (LIMB_BITS - x[i].leading_zeros() as usize);
        }
    }
    0
}

/// Limbs needed for `bits` bits.
///
/// ```
/// use redc::limb::limbs_for_bits;
/// assert_eq!(limbs_for_bits(2048), 32);
/// assert_eq!(limbs_for_bits(65), 2);
/// assert_eq!(limbs_for_bits(0), 0);
/// ```
pub fn limbs_for_bits(bits: usize) -> usize {
    bits.div_ceil(LIMB_BITS)
}

/// Drop high zero limbs of a public number, keeping at least one limb.
///
/// ```
/// use redc::limb::trim_vartime;
/// assert_eq!(trim_vartime(&[7, 0, 0]), [7]);
/// assert_eq!(trim_vartime(&[0, 0]), [0]);
/// ```
pub fn trim_vartime(x: &[u64]) -> &[u64] {
    let mut len = x.len();
    while len > 1 && x[len - 1] == 0 {
        len -= 1;
    }
    &x[..len.max(1).min(x.len())]
}

/// Value of big-endian `bytes` in exactly `out.len()` limbs. Leading zero
/// bytes are allowed; a value that needs more limbs is [`Error::TooLong`].
/// Time depends on the lengths only.
///
/// ```
/// use redc::{Error, limb::from_be_bytes_into};
/// let mut out = [0u64; 2];
/// from_be_bytes_into(&mut out, &[1, 0, 0, 0, 0, 0, 0, 0, 2]).unwrap();
/// assert_eq!(out, [2, 1]); // 2^64 + 2
/// let mut one = [0u64; 1];
/// // Leading zero bytes are fine; a ninth significant byte is not.
/// assert!(from_be_bytes_into(&mut one, &[0, 0, 0, 0, 0, 0, 0, 0, 5]).is_ok());
/// assert_eq!(one, [5]);
/// assert_eq!(from_be_bytes_into(&mut one, &[1; 9]), Err(Error::TooLong));
/// ```
pub fn from_be_bytes_into(out: &mut [u64], bytes: &[u8]) -> Result<(), Error> {
    out.fill(0);
    // Eight bytes at a time from the least significant end; the leading
    // len % 8 bytes, if any, make the last (partial) limb.
    let mut overflow = 0u64;
    let mut chunks = bytes.rchunks_exact(8);
    for (k, chunk) in (&mut chunks).enumerate() {
        let v = u64::from_be_bytes(chunk.try_into().expect("eight bytes"));
        match out.get_mut(k) {
            Some(limb) => *limb = v,
            None => overflow |= v,
        }
    }
    let top = chunks
        .remainder()
        .iter()
        .fold(0u64, |acc, &b| (acc << 8) | b as u64);
    match out.get_mut(bytes.len() / 8) {
        Some(limb) => *limb = top,
        None => overflow |= top,
    }
    // Whether the value fits is a fact about its length, which callers treat as public.
    if overflow != 0 {
        return Err(Error::TooLong);
    }
    Ok(())
}

/// Value of big-endian `bytes` in `ceil(len/8)` limbs (at least one).
///
/// ```
/// use redc::limb::from_be_bytes;
/// assert_eq!(from_be_bytes(&[0x01, 0x00]), vec![256]);
/// assert_eq!(from_be_bytes(&[1, 0, 0, 0, 0, 0, 0, 0, 0]), vec![0, 1]);
/// assert_eq!(from_be_bytes(&[]), vec![0]);
/// ```
pub fn from_be_bytes(bytes: &[u8]) -> Vec<u64> {
    let mut out = vec![0; bytes.len().div_ceil(8).max(1)];
    from_be_bytes_into(&mut out, bytes).expect("sized to fit");
    out
}

/// Big-endian bytes of `x`, exactly `out.len()` of them (left-padded with
/// zeros). A value that needs more bytes is [`Error::TooLong`].
///
/// ```
/// use redc::{Error, limb::to_be_bytes_into};
/// let mut out = [0xaau8; 3];
/// to_be_bytes_into(&mut out, &[0x0102]).unwrap();
/// assert_eq!(out, [0, 1, 2]);
/// assert_eq!(to_be_bytes_into(&mut [0u8; 1], &[0x0102]), Err(Error::TooLong));
/// ```
pub fn to_be_bytes_into(out: &mut [u8], x: &[u64]) -> Result<(), Error> {
    let n = out.len();
    let mut overflow = 0u64;
    // Limb k fills out[n - 8k - 8 .. n - 8k]; only the lengths choose the arm.
    for (k, &limb) in x.iter().enumerate() {
        let room = n.saturating_sub(8 * k);
        if room >= 8 {
            out[room - 8..room].copy_from_slice(&limb.to_be_bytes());
        } else if room > 0 {
            out[..room].copy_from_slice(&limb.to_be_bytes()[8 - room..]);
            overflow |= limb >> (8 * room);
        } else {
            overflow |= limb;
        }
    }
    let pad = n.saturating_sub(x.len() * 8);
    out[..pad].fill(0);
    if overflow != 0 {
        return Err(Error::TooLong);
    }
    Ok(())
}

/// Big-endian bytes of `x`, `8 * x.len()` of them.
///
/// ```
/// use redc::limb::to_be_bytes;
/// assert_eq!(to_be_bytes(&[0x0102]), [0, 0, 0, 0, 0, 0, 1, 2]);
/// ```
pub fn to_be_bytes(x: &[u64]) -> Vec<u8> {
    let mut out = vec![0; x.len() * 8];
    to_be_bytes_into(&mut out, x).expect("sized to fit");
    out
}

/// Parse hex digits (optional `0x`, either case) into limbs, at least one.
/// For public or user-typed numbers: time depends on the digits.
///
/// ```
/// use redc::{Error, limb::from_hex};
/// assert_eq!(from_hex("FF").unwrap(), vec![255]);
/// assert_eq!(from_hex("0x10000000000000000").unwrap(), vec![0, 1]); // 2^64
/// assert_eq!(from_hex("xyz"), Err(Error::InvalidHex));
/// assert_eq!(from_hex(""), Err(Error::InvalidHex));
/// ```
pub fn from_hex(text: &str) -> Result<Vec<u64>, Error> {
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .unwrap_or(text);
    if digits.is_empty() {
        return Err(Error::InvalidHex);
    }
    let mut out = vec![0u64; digits.len().div_ceil(16).max(1)];
    for (k, c) in digits.bytes().rev().enumerate() {
        let v = (c as char).to_digit(16).ok_or(Error::InvalidHex)? as u64;
        out[k / 16] |= v << (4 * (k % 16));
    }
    Ok(out)
}

/// Lowercase hex, no `0x`, no leading zeros, `"0"` for zero. Leaks the
/// value's length: for results that are about to be printed.
///
/// ```
/// use redc::limb::to_hex_vartime;
/// assert_eq!(to_hex_vartime(&[255]), "ff");
/// assert_eq!(to_hex_vartime(&[0, 1]), "10000000000000000");
/// assert_eq!(to_hex_vartime(&[0, 0]), "0");
/// ```
pub fn to_hex_vartime(x: &[u64]) -> String {
    let x = trim_vartime(x);
    let mut s = format!("{:x}", x[x.len() - 1]);
    for limb in x[..x.len() - 1].iter().rev() {
        s.push_str(&format!("{limb:016x}"));
    }
    s
}

/// Copy `x` into `len` limbs, failing if it does not fit. Public lengths.
///
/// ```
/// use redc::{Error, limb::resize};
/// assert_eq!(resize(&[5], 3).unwrap(), vec![5, 0, 0]);
/// assert_eq!(resize(&[5, 0], 1).unwrap(), vec![5]);
/// assert_eq!(resize(&[5, 1], 1), Err(Error::TooLong));
/// ```
pub fn resize(x: &[u64], len: usize) -> Result<Vec<u64>, Error> {
    let mut out = vec![0; len];
    let mut overflow = 0;
    for (i, &xi) in x.iter().enumerate() {
        if i < len {
            out[i] = xi;
        } else {
            overflow |= xi;
        }
    }
    if overflow != 0 {
        return Err(Error::TooLong);
    }
    Ok(out)
}
