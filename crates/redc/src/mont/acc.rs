//! The three-word column accumulator of the product-scanning algorithms
//! (FIPS and the fused squaring).
//!
//! Value: `t0 + t1 W + t2 W^2`, W = 2^64. A column adds at most 2s double
//! words (each < W^2) plus a carried-in value below 2s W + W, so the
//! accumulator stays below (2s + 2) W^2 and three words hold it for any
//! s < 2^62.

use crate::limb::{adc, mac};

/// Column accumulator `(t0, t1, t2)`.
#[derive(Clone, Copy, Default)]
pub(super) struct Acc(pub u64, pub u64, pub u64);

impl Acc {
    /// acc += x * y (Koç's `(C,S) = t0 + x y; ADD(t1, C)`).
    #[inline(always)]
    pub fn mac(&mut self, x: u64, y: u64) {
        let (lo, hi) = mac(self.0, x, y, 0);
        let c;
        self.0 = lo;
        (self.1, c) = adc(self.1, hi, 0);
        self.2 += c;
    }

    /// acc += other.
    #[inline(always)]
    pub fn add(&mut self, other: Acc) {
        let (c0, c1);
        (self.0, c0) = adc(self.0, other.0, 0);
        (self.1, c1) = adc(self.1, other.1, c0);
        self.2 += other.2 + c1;
    }

    /// acc *= 2. Precondition: the top bit of t2 is clear.
    #[inline(always)]
    pub fn double(&mut self) {
        self.2 = (self.2 << 1) | (self.1 >> 63);
        self.1 = (self.1 << 1) | (self.0 >> 63);
        self.0 <<= 1;
    }

    /// acc >>= 64: the next column.
    #[inline(always)]
    pub fn shift(&mut self) {
        *self = Acc(self.1, self.2, 0);
    }
}
