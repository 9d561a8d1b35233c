//! Constant-time helpers over bytes and lengths, built on [`crate::ct::Mask`].
//!
//! Lengths handled here are far below 2^63, which the comparisons rely on.

use crate::ct::Mask;

/// True when `a == b`.
#[inline]
pub(crate) fn eq_u8(a: u8, b: u8) -> Mask {
    Mask::is_zero(u64::from(a ^ b))
}

/// True when `a < b`; both below 2^63.
#[inline]
pub(crate) fn lt(a: usize, b: usize) -> Mask {
    Mask::from_bit((a as u64).wrapping_sub(b as u64) >> 63)
}

/// `a` when `m`, else `b`.
#[inline]
pub(crate) fn select_usize(m: Mask, a: usize, b: usize) -> usize {
    m.select(a as u64, b as u64) as usize
}

/// `a` when `m`, else `b`.
#[inline]
pub(crate) fn select_u8(m: Mask, a: u8, b: u8) -> u8 {
    m.select(u64::from(a), u64::from(b)) as u8
}

/// True when the two equal-length (public lengths) slices are equal; reads
/// every byte.
pub(crate) fn bytes_eq(a: &[u8], b: &[u8]) -> Mask {
    debug_assert_eq!(a.len(), b.len());
    let acc = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    Mask::is_zero(u64::from(acc)) & Mask::from_bit(u64::from(a.len() == b.len()))
}

/// Shift `buf` left by a secret `shift <= buf.len()` bytes, filling with
/// zeros: a barrel shifter whose memory accesses depend only on `buf.len()`.
pub(crate) fn shift_left(buf: &mut [u8], shift: usize) {
    let len = buf.len();
    let mut step = 1usize;
    let mut bit = 0u32;
    while step <= len {
        let m = Mask::from_bit(((shift >> bit) & 1) as u64);
        for i in 0..len {
            let src = if i + step < len { buf[i + step] } else { 0 };
            buf[i] = select_u8(m, src, buf[i]);
        }
        step <<= 1;
        bit += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts() {
        for len in 0..20usize {
            let orig: Vec<u8> = (1..=len as u8).collect();
            for s in 0..=len {
                let mut b = orig.clone();
                shift_left(&mut b, s);
                let mut want = orig[s..].to_vec();
                want.resize(len, 0);
                assert_eq!(b, want, "len {len} shift {s}");
            }
        }
    }

    #[test]
    fn compares() {
        assert!(lt(3, 4).leak_bool());
        assert!(!lt(4, 4).leak_bool());
        assert!(!lt(5, 4).leak_bool());
        assert!(eq_u8(7, 7).leak_bool());
        assert!(!eq_u8(7, 6).leak_bool());
        assert!(bytes_eq(b"abc", b"abc").leak_bool());
        assert!(!bytes_eq(b"abc", b"abd").leak_bool());
        assert_eq!(select_usize(Mask::TRUE, 1, 2), 1);
        assert_eq!(select_u8(Mask::FALSE, 1, 2), 2);
    }
}
