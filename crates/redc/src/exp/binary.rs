//! Binary exponentiation, the reference methods.
//!
//! Paper: Shand and Vuillemin, "Fast Implementations of RSA Cryptography", section 4.1: Algorithm 2 (L, low to high:
//! square the base, multiply into the result when the bit is set) and
//! Algorithm 3 (H, high to low: square the result, then multiply by the
//! base when the bit is set). Both branch on exponent bits: **variable
//! time**, for public exponents and as test references only.

use super::MontEngine;

/// `base^exp mod n`, high-to-low binary method (003 Alg. 3). Variable time.
/// `base < n` in the engine's limb count; `exp` any little-endian limbs.
///
/// ```
/// use redc::exp::{MontEngine, binary};
/// let engine = MontEngine::new(&[241]).unwrap(); // N = 241, prime
/// assert_eq!(binary::pow_ltr_vartime(&engine, &[3], &[5]), vec![243 % 241]);
/// assert_eq!(binary::pow_ltr_vartime(&engine, &[3], &[240]), vec![1]); // Fermat
/// ```
pub fn pow_ltr_vartime(engine: &MontEngine, base: &[u64], exp: &[u64]) -> Vec<u64> {
    let mut ws = engine.workspace();
    let b = engine.to_mont(base, &mut ws);
    let mut acc = engine.one_mont();
    let bits = crate::limb::bit_len_vartime(exp);
    for i in (0..bits).rev() {
        engine.sqr_in_place(&mut acc, &mut ws);
        if (exp[i / 64] >> (i % 64)) & 1 == 1 {
            engine.mul_in_place(&mut acc, &b, &mut ws);
        }
    }
    engine.from_mont(&acc, &mut ws)
}

/// `base^exp mod n`, low-to-high binary method (003 Alg. 2). Variable time.
///
/// ```
/// use redc::exp::{MontEngine, binary};
/// let engine = MontEngine::new(&[241]).unwrap(); // N = 241, prime
/// assert_eq!(binary::pow_rtl_vartime(&engine, &[3], &[5]), vec![243 % 241]);
/// assert_eq!(
///     binary::pow_rtl_vartime(&engine, &[7], &[1000]),
///     binary::pow_ltr_vartime(&engine, &[7], &[1000]),
/// );
/// ```
pub fn pow_rtl_vartime(engine: &MontEngine, base: &[u64], exp: &[u64]) -> Vec<u64> {
    let mut ws = engine.workspace();
    let mut square = engine.to_mont(base, &mut ws);
    let mut acc = engine.one_mont();
    let bits = crate::limb::bit_len_vartime(exp);
    for i in 0..bits {
        if (exp[i / 64] >> (i % 64)) & 1 == 1 {
            engine.mul_in_place(&mut acc, &square, &mut ws);
        }
        if i + 1 < bits {
            engine.sqr_in_place(&mut square, &mut ws);
        }
    }
    engine.from_mont(&acc, &mut ws)
}
