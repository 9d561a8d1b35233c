//! The asynchronous carry-completion adder of Shand and Vuillemin
//! (Shand and Vuillemin, "Fast Implementations of RSA Cryptography", section 8.1).
//!
//! A carry-save pair `(S, C)` is converted to binary by clocking a row of
//! half adders, `S <- S xor C`, `C <- (S and C) << 1`, until a wide OR of the
//! carry vector reports zero.  The register is idempotent once `C = 0`, so
//! the controller may sample the OR gate late; the model stops on the first
//! clock after which `C = 0` and counts every clock applied.
//!
//! Register invariant: `S + C` is constant (the value being converted); the
//! number of clocks equals the length of the longest carry propagation,
//! which Knuth (ref. [K 81] of 003) shows is about `log2 k` on average for
//! random `k`-bit operands — the figure [`crate::reproduce`] checks.

use num_bigint::BigUint;
use num_traits::Zero;

/// Converts `s + c` to binary; returns the value and the clocks spent.
pub fn complete(s: &BigUint, c: &BigUint) -> (BigUint, u64) {
    let mut s = s.clone();
    let mut c = c.clone();
    let mut cycles = 0u64;
    while !c.is_zero() {
        cycles += 1;
        let carry = (&s & &c) << 1u32;
        s ^= &c;
        c = carry;
    }
    (s, cycles)
}

/// Mean number of clocks over `samples` pairs of independent uniformly random
/// `k`-bit operands drawn from `rng`.
pub fn mean_cycles<R: rand::Rng>(k: u64, samples: usize, rng: &mut R) -> f64 {
    use num_bigint::RandBigInt;
    let mut total = 0u64;
    for _ in 0..samples {
        let s = rng.gen_biguint(k);
        let c = rng.gen_biguint(k);
        total += complete(&s, &c).1;
    }
    total as f64 / samples.max(1) as f64
}
