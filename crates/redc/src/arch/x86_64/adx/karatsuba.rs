//! Number-level Karatsuba for the product half of the MULX/ADX SOS form:
//! t = a b (or a^2) split into three half-size products down to leaves
//! formed by bands (the parent module's `product` and `square`), then
//! reduced by the banded Montgomery reduction.
//!
//! Papers: Furukawa, Takenaka and Itoh, "A Fast RSA Implementation on
//! Itanium 2", section 6 (number-level Karatsuba for long keys, left there
//! as future work); Koc, Acar and Kaliski, "Analyzing and Comparing
//! Montgomery Multiplication Algorithms" (SOS forms the product whole
//! before the reduction, so any multiplication may form it). The recursion,
//! its carry bounds and its constant-time signs are
//! [`crate::mont::karatsuba`]'s; this file supplies the leaves and where to
//! stop.
//!
//! A level splits n limbs into halves of n/2, so only counts that are
//! multiples of 16 split (the halves stay multiples of 8, as the bands
//! need). One level replaces n^2 word products by 3 n^2 / 4 plus about 6n
//! limb additions; the Montgomery reduction (n^2) is unchanged, so a level
//! saves at most an eighth of a product and a sixteenth of a squaring's
//! work (which is 1.5 n^2). Where that pays is measured: [`MUL_FROM`],
//! [`SQR_FROM`].
//!
//! Secrets: the operands and the modulus (a CRT prime). Every split, loop
//! bound and index depends on the public limb count only.

use crate::mont::karatsuba::{Leaves, mul_by, square_by, work_len_by};

/// The smallest limb count whose product splits (a multiple of 16): leaves
/// of at least 32 limbs. Measured with `cargo run --release --example
/// karatsuba_threshold -p redc -- adx` (docs/PERFORMANCE.md, "Karatsuba on
/// the scalar paths").
pub const MUL_FROM: usize = 64;

/// The smallest limb count whose square splits: leaves of at least 48
/// limbs (the banded squaring's triangle halves its products, so its
/// leaves must be larger before a split pays). Measured as [`MUL_FROM`].
pub const SQR_FROM: usize = 96;

/// The banded leaves and where a recursion over them splits: limb counts
/// that are multiples of 16 from `mul` (products) or `sqr` (squares) up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bands {
    /// The smallest product that splits.
    pub mul: usize,
    /// The smallest square that splits.
    pub sqr: usize,
}

impl Bands {
    /// The measured thresholds, [`MUL_FROM`] and [`SQR_FROM`].
    pub const CHOSEN: Bands = Bands {
        mul: MUL_FROM,
        sqr: SQR_FROM,
    };

    /// Never split: the bands alone (schoolbook order).
    pub const NEVER: Bands = Bands {
        mul: usize::MAX,
        sqr: usize::MAX,
    };

    /// Split every count that can (multiples of 16 from 16 up).
    pub const ALWAYS: Bands = Bands { mul: 16, sqr: 16 };
}

impl Leaves for Bands {
    fn splits(&self, n: usize, square: bool) -> bool {
        n.is_multiple_of(16) && n >= if square { self.sqr } else { self.mul }
    }

    fn mul(&self, r: &mut [u64], a: &[u64], b: &[u64]) {
        super::product(r, a, b)
    }

    fn square(&self, r: &mut [u64], a: &[u64]) {
        super::square(r, a)
    }
}

/// Workspace limbs beyond t's 2n + 1 that the split product and square need at
/// n limbs with these thresholds (0 where nothing splits).
pub fn work_len(bands: Bands, n: usize) -> usize {
    work_len_by(&bands, n)
}

/// `r = a b` (2n limbs) by Karatsuba over bands where `bands` splits n and
/// `work` holds the recursion's workspace; false, and `r` untouched,
/// elsewhere (the caller forms the product by bands). n a multiple of 8;
/// the caller checked BMI2/ADX.
pub(super) fn mul(bands: Bands, r: &mut [u64], a: &[u64], b: &[u64], work: &mut [u64]) -> bool {
    let n = a.len();
    if !bands.splits(n, false) || work.len() < work_len_by(&bands, n) {
        return false;
    }
    mul_by(&bands, r, a, b, work);
    true
}

/// `r = a^2` as [`mul`], by three half-size squares per level.
pub(super) fn square(bands: Bands, r: &mut [u64], a: &[u64], work: &mut [u64]) -> bool {
    let n = a.len();
    if !bands.splits(n, true) || work.len() < work_len_by(&bands, n) {
        return false;
    }
    square_by(&bands, r, a, work);
    true
}
