//! Constant-time fixed-window exponentiation, for secret exponents.
//!
//! Paper: Shand and Vuillemin, "Fast Implementations of RSA Cryptography", section 4.2 (the beta-ary method,
//! beta = 2^p). 003 stores odd powers only and multiplies only for non-zero
//! digits, expecting beta/2 + k - p + (k/p)(beta-1)/beta products. Here
//! every choice must be independent of the exponent, so the table holds all
//! 2^p powers, every window multiplies (by R mod N, the Montgomery one,
//! when the digit is 0), and every table entry is read on every lookup:
//!
//! ```text
//! products(p) = (2^p - 2) + (k - p) + (k/p - 1)   table, squarings, multiplications
//! gathers(p)  = (k/p) 2^p s words read, about 2^p / (8 s) products per window
//! ```
//!
//! (a product costs about 4 s^2 cycles in portable code, a word of the
//! gather about half a cycle). [`window_bits`] minimises the sum: without
//! the gather term a 1024-bit exponent would pick p = 6 (1250 products
//! against 1253 for p = 5) and then spend more on reading the 64-entry
//! table than the three products it saved. What may leak: the exponent's length in
//! limbs (public: the caller pads secrets to the modulus's limb count) and
//! the modulus. What does not: the exponent's bits, the base, and every
//! intermediate value (the kernels are constant time; the gather is a
//! masked read of the whole table).

use super::MontEngine;
pub use crate::arch::gather::gather;
use zeroize::Zeroize;

/// Cost, in eighths of a product, of the constant-time p-bit window method
/// for a k-bit exponent modulo an s-limb modulus (products plus gathers).
///
/// ```
/// use redc::exp::window::window_cost;
/// // 1024-bit exponent, 16-limb modulus, 5-bit windows: 1253 products and
/// // 205 gathers of 32 entries (in eighths of a product).
/// assert_eq!(window_cost(1024, 16, 5), 8 * 1253 + 205 * 32 / 16);
/// ```
pub fn window_cost(k: usize, s: usize, p: usize) -> usize {
    let windows = k.div_ceil(p);
    let products = ((1usize << p) - 2) + k.saturating_sub(p) + windows.saturating_sub(1);
    8 * products + windows * (1usize << p) / s.max(1)
}

/// The window width in 1..=7 that minimises [`window_cost`] (smaller on ties).
///
/// ```
/// use redc::exp::window::{window_bits, window_cost};
/// assert_eq!(window_bits(1024, 16), 5);
/// assert_eq!(window_bits(1, 1), 1);
/// let best = window_bits(2048, 32);
/// assert!((1..=7).all(|p| window_cost(2048, 32, best) <= window_cost(2048, 32, p)));
/// ```
pub fn window_bits(k: usize, s: usize) -> usize {
    (1..=7)
        .min_by_key(|&p| (window_cost(k, s, p), p))
        .expect("non-empty")
}

/// `base^exp mod n`, constant time in `base` and `exp`.
///
/// Preconditions: `base < n`, `base.len()` = the engine's limb count;
/// `exp` any length (the length is public). Returns s limbs, fully reduced.
///
/// ```
/// use redc::exp::{MontEngine, window};
/// let engine = MontEngine::new(&[241]).unwrap(); // N = 241, prime
/// assert_eq!(window::pow_secret(&engine, &[3], &[5]), vec![243 % 241]);
/// assert_eq!(window::pow_secret(&engine, &[3], &[240, 0]), vec![1]); // Fermat
/// ```
pub fn pow_secret(engine: &MontEngine, base: &[u64], exp: &[u64]) -> Vec<u64> {
    let s = engine.limbs();
    let k = 64 * exp.len();
    let p = window_bits(k, s);
    let mut ws = engine.workspace();
    // table[i] = base^i in Montgomery form, i < 2^p.
    let entries = 1usize << p;
    let mut table = vec![0u64; entries * s];
    table[..s].copy_from_slice(&engine.one_mont());
    // The base in Montgomery form is as secret as the base: wiped on drop.
    let base_m = zeroize::Zeroizing::new(engine.to_mont(base, &mut ws));
    table[s..2 * s].copy_from_slice(&base_m);
    for i in 2..entries {
        let (done, rest) = table.split_at_mut(i * s);
        let prev = &done[(i - 1) * s..];
        engine.mul_into(&mut rest[..s], prev, &base_m, &mut ws);
    }
    // Windows from the top; the first one loads instead of multiplying.
    let windows = k.div_ceil(p);
    let mut acc = vec![0u64; s];
    // Each product writes `next`, which then changes places with `acc`: no
    // copy back per product.
    let mut next = vec![0u64; s];
    let mut picked = vec![0u64; s];
    for w in (0..windows).rev() {
        let digit = window_at(exp, w * p, p);
        gather_dispatch(&mut picked, &table, digit, s);
        if w == windows - 1 {
            acc.copy_from_slice(&picked);
            continue;
        }
        // The loop's kernels: acc may stay below R rather than N (lazy
        // kernels, where the engine has them); `from_mont` reduces it.
        for _ in 0..p {
            engine.sqr_loop_into(&mut next, &acc, &mut ws);
            core::mem::swap(&mut acc, &mut next);
        }
        engine.mul_loop_into(&mut next, &acc, &picked, &mut ws);
        core::mem::swap(&mut acc, &mut next);
    }
    let out = engine.from_mont(&acc, &mut ws);
    table.zeroize();
    acc.zeroize();
    next.zeroize();
    picked.zeroize();
    out
}

/// Bits `[pos, pos + p)` of `exp` (zeros past its end). `pos` and `p` are
/// public; the value is secret and is used only through masks.
fn window_at(exp: &[u64], pos: usize, p: usize) -> u64 {
    let mut digit = 0;
    for j in 0..p {
        let bit = pos + j;
        if bit < 64 * exp.len() {
            digit |= ((exp[bit / 64] >> (bit % 64)) & 1) << j;
        }
    }
    digit
}

/// [`gather`], with AVX2 where the CPU has it.
fn gather_dispatch(out: &mut [u64], table: &[u64], digit: u64, s: usize) {
    #[cfg(target_arch = "x86_64")]
    if crate::arch::x86_64::gather_avx2(out, table, digit, s) {
        return;
    }
    gather(out, table, digit, s);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_choice_follows_the_cost_formula() {
        // Small exponents want small windows; RSA-size ones 4..6.
        assert_eq!(window_bits(1, 1), 1);
        assert_eq!(window_bits(17, 1), 2);
        // Worked by hand: k = 1024, s = 16: p = 5 costs 1253 products + 205 gathers of
        // 32 entries (51 products), p = 6 costs 1250 + 171 * 64 / 128 = 85.5.
        assert_eq!(window_cost(1024, 16, 5), 8 * 1253 + 205 * 32 / 16);
        assert_eq!(window_bits(1024, 16), 5);
        for (k, s) in [(512usize, 8usize), (1024, 16), (1536, 24), (2048, 32), (4096, 64)] {
            let got = window_bits(k, s);
            assert!((4..=6).contains(&got), "k = {k}: {got}");
            for p in 1..=7 {
                assert!(window_cost(k, s, got) <= window_cost(k, s, p));
            }
        }
    }
}
