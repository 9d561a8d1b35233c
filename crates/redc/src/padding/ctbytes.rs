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

/// The first `len` bytes of `buf` (a secret `len <= buf.len()`, public once
/// returned) as a vector whose allocation, copy and wiping (`Zeroizing`
/// wipes the capacity) do not depend on `len`: `buf.len()` bytes are
/// allocated and copied, those from `len` on cleared with masks, and only
/// then is the length set. (A copy of the prefix alone allocates nothing
/// for an empty one and `len` bytes otherwise: a timing test told an empty
/// implicit-rejection result from a 48-byte one on AMD Zen 5.)
pub(crate) fn prefix_vec(buf: &[u8], len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(buf.len());
    for (i, &b) in buf.iter().enumerate() {
        out.push(select_u8(lt(i, len), b, 0));
    }
    // The only step that reads `len` with a branch: `truncate`'s check
    // `len > out.len()`, never taken.
    out.truncate(len);
    out
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

    #[test]
    fn prefix_vec_is_the_prefix_with_the_whole_capacity() {
        let buf: Vec<u8> = (1..=40).collect();
        for len in [0, 1, 17, 39, 40] {
            let v = prefix_vec(&buf, len);
            assert_eq!(v, buf[..len], "len {len}");
            assert!(v.capacity() >= buf.len(), "len {len}: capacity {}", v.capacity());
        }
    }
}
