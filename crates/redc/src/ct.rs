//! Constant-time masks.
//!
//! A [`Mask`] is a `u64` that is either all zeros (false) or all ones
//! (true). Secret-dependent choices are made with masks and bitwise
//! arithmetic, never with `if` or an index. The value passes through
//! [`core::hint::black_box`] when it is created so that the optimiser cannot
//! see that only two values are possible and turn a select back into a
//! branch.

use core::hint::black_box;

/// All-zeros (false) or all-ones (true); safe to hold a secret.
///
/// ```
/// use redc::ct::Mask;
/// let bit = 1; // say, a secret bit
/// let m = Mask::from_bit(bit);
/// assert_eq!(m.select(10, 20), 10);
/// assert_eq!((!m).select(10, 20), 20);
/// assert_eq!(m & Mask::FALSE, Mask::FALSE);
/// assert_eq!(m | Mask::FALSE, Mask::TRUE);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mask(u64);

impl Mask {
    /// The false mask.
    ///
    /// ```
    /// assert_eq!(redc::ct::Mask::FALSE.word(), 0);
    /// ```
    pub const FALSE: Mask = Mask(0);
    /// The true mask.
    ///
    /// ```
    /// assert_eq!(redc::ct::Mask::TRUE.word(), u64::MAX);
    /// ```
    pub const TRUE: Mask = Mask(u64::MAX);

    /// Mask from a bit that is 0 or 1. Precondition: `bit <= 1`.
    ///
    /// ```
    /// use redc::ct::Mask;
    /// assert_eq!(Mask::from_bit(1), Mask::TRUE);
    /// assert_eq!(Mask::from_bit(0), Mask::FALSE);
    /// ```
    #[inline]
    pub fn from_bit(bit: u64) -> Mask {
        debug_assert!(bit <= 1);
        Mask(black_box(bit.wrapping_neg()))
    }

    /// True when `x == 0`; no branch on `x`.
    ///
    /// ```
    /// use redc::ct::Mask;
    /// assert_eq!(Mask::is_zero(0), Mask::TRUE);
    /// assert_eq!(Mask::is_zero(1 << 63), Mask::FALSE);
    /// ```
    #[inline]
    pub fn is_zero(x: u64) -> Mask {
        // (x | -x) has its top bit set exactly when x != 0.
        let nonzero = (x | x.wrapping_neg()) >> 63;
        Mask::from_bit(nonzero ^ 1)
    }

    /// True when `x != 0`.
    ///
    /// ```
    /// use redc::ct::Mask;
    /// assert_eq!(Mask::is_nonzero(5), Mask::TRUE);
    /// assert_eq!(Mask::is_nonzero(0), Mask::FALSE);
    /// ```
    #[inline]
    pub fn is_nonzero(x: u64) -> Mask {
        !Mask::is_zero(x)
    }

    /// The raw word: 0 or `u64::MAX`.
    ///
    /// ```
    /// use redc::ct::Mask;
    /// assert_eq!(Mask::is_zero(0).word(), u64::MAX);
    /// assert_eq!(Mask::is_zero(7).word(), 0);
    /// ```
    #[inline]
    pub fn word(self) -> u64 {
        self.0
    }

    /// `a` when true, `b` when false; no branch.
    ///
    /// ```
    /// use redc::ct::Mask;
    /// assert_eq!(Mask::TRUE.select(1, 2), 1);
    /// assert_eq!(Mask::FALSE.select(1, 2), 2);
    /// ```
    #[inline]
    pub fn select(self, a: u64, b: u64) -> u64 {
        b ^ (self.0 & (a ^ b))
    }

    /// Turn the mask into a `bool`. This leaks it: call only where the value
    /// is public (or its leak is harmless), and say so at the call site.
    ///
    /// ```
    /// use redc::ct::Mask;
    /// // The outcome of an input check is public: leaking it is fine.
    /// assert!(Mask::TRUE.leak_bool());
    /// assert!(!Mask::is_nonzero(0).leak_bool());
    /// ```
    #[inline]
    pub fn leak_bool(self) -> bool {
        self.0 != 0
    }
}

impl core::ops::Not for Mask {
    type Output = Mask;
    #[inline]
    fn not(self) -> Mask {
        Mask(!self.0)
    }
}

impl core::ops::BitAnd for Mask {
    type Output = Mask;
    #[inline]
    fn bitand(self, rhs: Mask) -> Mask {
        Mask(self.0 & rhs.0)
    }
}

impl core::ops::BitOr for Mask {
    type Output = Mask;
    #[inline]
    fn bitor(self, rhs: Mask) -> Mask {
        Mask(self.0 | rhs.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks() {
        assert_eq!(Mask::is_zero(0), Mask::TRUE);
        assert_eq!(Mask::is_zero(1), Mask::FALSE);
        assert_eq!(Mask::is_zero(u64::MAX), Mask::FALSE);
        assert_eq!(Mask::is_zero(1 << 63), Mask::FALSE);
        assert_eq!(Mask::from_bit(1).select(7, 9), 7);
        assert_eq!(Mask::from_bit(0).select(7, 9), 9);
        assert_eq!((!Mask::TRUE), Mask::FALSE);
    }
}
