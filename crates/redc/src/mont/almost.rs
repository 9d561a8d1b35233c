//! Almost-Montgomery multiplication: no final subtraction.
//!
//! Papers: Shand and Vuillemin, "Fast Implementations of RSA Cryptography", eq. (5) and Algorithm 5 (Shand and
//! Vuillemin: with inputs below 2N the Hensel quotient is below 2N when
//! 4N <= R); Zhao, Wang, Lu and Dai, "Hierarchical Optimizations for High Speed Implementation of Modular Exponentiation in ASIC", Algorithm 1 (Zhao et al.'s 2M bound).
//!
//! Bound. For A, B < 2N and m < R:
//!
//! ```text
//! (A B + m N) / R  <  (4 N^2 + R N) / R  =  N (4N/R + 1)  <  2N   when 4N < R.
//! ```
//!
//! So outputs below 2N can be fed back as inputs for ever, and the result
//! always fits in s limbs (2N < R/2). The loop is FIPS's column loop
//! ([`super::fips::core`], the fastest portable loop here) without its final
//! subtraction (its three-word accumulator bound does not depend on A, B); a modulus with 4N >= R (either of the two
//! top bits of its top limb set) breaks the bound and is rejected by
//! [`super::MontContext`] with [`crate::Error::AlmostBound`].

/// `out = a * b * R^-1 mod n`, some value in `[0, 2n)`.
///
/// Preconditions: `4n < R`; `a, b < 2n`; `out`, `a`, `b`, `n` of length `s`;
/// `scratch` at least `s + 2` limbs; `n0 = -n^-1 mod 2^64`.
///
/// ```
/// use redc::{limb, mont::{MontContext, almost}};
/// // N = 2^125 - 1: its top two bits are clear, so 4N < R = 2^128.
/// let ctx = MontContext::new(&[u64::MAX, u64::MAX >> 3]).unwrap();
/// let a = ctx.to_mont(&[3]).unwrap();
/// let b = ctx.to_mont(&[u64::MAX, 1]).unwrap(); // 2^65 - 1
/// let mut out = [0u64; 2];
/// almost::mont_mul(&mut out, &a, &b, ctx.modulus(), ctx.n0(), &mut ctx.scratch());
/// // The result is below 2N; one subtraction reduces it fully.
/// limb::reduce_once(&mut out, 0, ctx.modulus());
/// assert_eq!(ctx.from_mont(&out).unwrap(), vec![u64::MAX - 2, 5]);
/// ```
pub fn mont_mul(out: &mut [u64], a: &[u64], b: &[u64], n: &[u64], n0: u64, scratch: &mut [u64]) {
    assert!(n[n.len() - 1] >> 62 == 0, "almost-Montgomery needs 4N < R");
    let top = super::fips::core(out, a, b, n, n0, scratch);
    debug_assert_eq!(top, 0, "result < 2N < R");
}

/// Whether the modulus (public) satisfies the bound `4N < R`.
///
/// ```
/// use redc::mont::almost::bound_holds;
/// assert!(bound_holds(&[u64::MAX, u64::MAX >> 2])); // 2^126 - 1
/// assert!(!bound_holds(&[u64::MAX, u64::MAX >> 1])); // 2^127 - 1
/// ```
pub fn bound_holds(n: &[u64]) -> bool {
    n[n.len() - 1] >> 62 == 0
}
