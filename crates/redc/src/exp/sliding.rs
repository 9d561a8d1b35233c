//! Sliding-window exponentiation for public exponents (variable time).
//!
//! Paper: Furukawa, Takenaka and Itoh, "A Fast RSA Implementation on Itanium 2", section 4.4 (RSA with a 5-bit sliding
//! window), Shand and Vuillemin, "Fast Implementations of RSA Cryptography" section 4.2 (odd powers only). Scanning
//! from the top, a window starts at a set bit and takes up to `w` bits
//! ending in a set bit, so only odd powers are stored. The exponent's bits
//! steer branches: use for public exponents only (verification,
//! encryption, the fault check). e = 65537 = 2^16 + 1 takes its own path:
//! sixteen squarings and one multiplication.

use super::MontEngine;
use crate::limb;
use zeroize::Zeroizing;

/// `base^exp mod n` for a public `exp`. Variable time in `exp`.
///
/// ```
/// use redc::exp::{MontEngine, binary, sliding};
/// let engine = MontEngine::new(&[241]).unwrap(); // N = 241, prime
/// assert_eq!(sliding::pow_public_vartime(&engine, &[3], &[5]), vec![243 % 241]);
/// // e = 65537 takes the dedicated path; the result is the same.
/// assert_eq!(
///     sliding::pow_public_vartime(&engine, &[3], &[65537]),
///     binary::pow_ltr_vartime(&engine, &[3], &[65537]),
/// );
/// ```
pub fn pow_public_vartime(engine: &MontEngine, base: &[u64], exp: &[u64]) -> Vec<u64> {
    let mut ws = engine.workspace();
    let exp = limb::trim_vartime(exp);
    // The base may be secret (a CRT half in the fault check): every
    // temporary holding a power of it is wiped.
    if exp == [65537] {
        let b = Zeroizing::new(engine.to_mont(base, &mut ws));
        let mut acc = b.clone();
        for _ in 0..16 {
            engine.sqr_in_place(&mut acc, &mut ws);
        }
        engine.mul_in_place(&mut acc, &b, &mut ws);
        return engine.from_mont(&acc, &mut ws);
    }
    let bits = limb::bit_len_vartime(exp);
    if bits == 0 {
        return engine.from_mont(&engine.one_mont(), &mut ws);
    }
    let bit = |i: usize| (exp[i / 64] >> (i % 64)) & 1 == 1;
    let w = match bits {
        0..=24 => 1,
        25..=80 => 3,
        81..=240 => 4,
        241..=672 => 5,
        _ => 6,
    };
    // Odd powers b, b^3, ..., b^(2^w - 1).
    let b = Zeroizing::new(engine.to_mont(base, &mut ws));
    let mut b2 = b.clone();
    engine.sqr_in_place(&mut b2, &mut ws);
    let mut odd = vec![b];
    for i in 1..(1usize << (w - 1)) {
        let mut next = odd[i - 1].clone();
        engine.mul_in_place(&mut next, &b2, &mut ws);
        odd.push(next);
    }
    let mut acc: Option<Zeroizing<Vec<u64>>> = None;
    let mut i = bits as isize - 1;
    while i >= 0 {
        if !bit(i as usize) {
            if let Some(a) = acc.as_mut() {
                engine.sqr_in_place(a, &mut ws);
            }
            i -= 1;
            continue;
        }
        // Longest window [j, i] of at most w bits ending in a set bit.
        let mut j = (i - w as isize + 1).max(0);
        while !bit(j as usize) {
            j += 1;
        }
        let mut value = 0usize;
        for t in (j..=i).rev() {
            value = (value << 1) | bit(t as usize) as usize;
        }
        match acc.as_mut() {
            None => acc = Some(odd[value >> 1].clone()),
            Some(a) => {
                for _ in j..=i {
                    engine.sqr_in_place(a, &mut ws);
                }
                engine.mul_in_place(a, &odd[value >> 1], &mut ws);
            }
        }
        i = j - 1;
    }
    match acc {
        Some(acc) => engine.from_mont(&acc, &mut ws),
        None => engine.from_mont(&engine.one_mont(), &mut ws), // unreachable: exp != 0
    }
}
