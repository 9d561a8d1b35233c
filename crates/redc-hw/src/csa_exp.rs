//! The modified RSA exponentiation of McIvor, McLoone and McCanny
//! (McIvor, McLoone and McCanny, "Modified Montgomery Modular Multiplication and RSA Exponentiation Techniques", section 3.2, Alg. 5 and Table 4).
//!
//! Two carry-save Montgomery multipliers ([`crate::csa_mont`]) run in
//! lock-step on one clock: in each exponent step multiplier 1 squares
//! `P` while multiplier 2 multiplies `R·P` (right-to-left binary method,
//! Alg. 4).  Every value stays in carry-save form from the pre-processing to
//! the post-processing; the only carry-propagate addition is the final
//! `M = M1 + M2` on the BRFA.
//!
//! ## Registers and invariants (after exponent step `i`)
//! * `P1 + P2 ≡ C^(2^i)·R (mod n)` and `P1 + P2 < 2n`.
//! * `R1 + R2 ≡ C^(d mod 2^i)·R (mod n)` and `R1 + R2 < 2n`.
//! * `K = R² mod n` is an external constant (as in the paper), with
//!   `R = 2^(k+2)` (see [`crate::csa_mont`] for why `k + 2`).
//!
//! ## Clocks (counted by the simulation loop)
//! | phase | this model | 004 Table 4 |
//! |---|---|---|
//! | pre-processing (`P[0]`, `R[0]` in parallel) | k + 3 (k + 4 for Alg. 3) | k + 2 |
//! | each of the `k_d` loop steps | k + 3 (k + 4) | k + 2 |
//! | post-processing `MontMult(1, R)` | k + 3 (k + 4) | k + 2 |
//! | final addition on the BRFA | k + 1 | k + 2 |
//!
//! Each product phase is the multiplier's iterations (k + 2, Walter's bound)
//! plus the one clock Table 4 adds to register the results; Alg. 3 adds its
//! `D1, D2` clock.  The final addition runs one clock per bit of the
//! `k + 1`-bit result registers (the paper's k + 2 includes loading them,
//! which here is the register clock of the post-processing phase).
//! Altogether the model spends `(k+3)(k_d+2) + k + 1` clocks against the
//! paper's `(k+2)(k_d+3)`: `k_d + 1` more, i.e. a relative excess of about
//! `1/k` (0.4 % at k = 256, 0.1 % at k = 1024).
//!
//! ## Departure: full reduction of the output
//! Walter's bound only gives `M = MontMult(1, R) <= n`, with `M = n` exactly
//! when `R ≡ 0 (mod n)` (possible for composite `n`, e.g. `3² mod 9`).  The
//! final addition therefore runs a serial subtractor beside the BRFA and
//! selects `M − n` when it does not borrow; this costs no clock.

use crate::HwError;
use crate::cs::{CsPair, final_add_reduce};
use crate::csa_mont::{CsaDesign, CsaMultiplier};
use num_bigint::BigUint;

/// What one simulated exponentiation produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsaExpReport {
    /// `base^exp mod n`, fully reduced.
    pub result: BigUint,
    /// `log2 R` (= k + 2).
    pub r_bits: usize,
    /// Clocks of the pre-processing phase.
    pub pre_cycles: u64,
    /// Clocks of the exponent loop.
    pub loop_cycles: u64,
    /// Clocks of the post-processing phase.
    pub post_cycles: u64,
    /// Clocks of the final addition.
    pub add_cycles: u64,
    /// Sum of the four phases: what 004 Table 4 counts.
    pub cycles: u64,
    /// Everything the model simulates (equal to `cycles`: `K = R² mod n` is
    /// computed externally, as in the paper).
    pub total_cycles: u64,
}

/// Runs both multipliers until both are done; returns the clocks spent,
/// counted one per simulated clock, plus the register clock.
fn run_parallel(m1: &mut CsaMultiplier, m2: Option<&mut CsaMultiplier>) -> u64 {
    let mut cycles = 0u64;
    match m2 {
        Some(m2) => {
            while !(m1.done() && m2.done()) {
                let busy = m1.tick() | m2.tick();
                cycles += busy;
            }
        }
        None => {
            while !m1.done() {
                cycles += m1.tick();
            }
        }
    }
    cycles + 1 // one clock to register the results for the next phase
}

/// `base^exp mod n` on the Alg. 5 exponentiator built from `design`
/// multipliers.  Requires an odd `n >= 3` and `base < n`.
pub fn modexp(
    design: CsaDesign,
    n: &BigUint,
    base: &BigUint,
    exp: &BigUint,
) -> Result<CsaExpReport, HwError> {
    let mut m1 = CsaMultiplier::new(design, n)?;
    crate::check_reduced(base, n, "the base")?;
    let mut m2 = m1.clone();
    let w = m1.words();
    let k = m1.k();
    let r_bits = m1.r_bits();
    let kk = (BigUint::from(1u32) << (2 * r_bits)) % n; // K = R^2 mod n, external

    // Pre-processing: P[0] = MontMult(K, C), R[0] = MontMult(K, 1) in parallel.
    m1.start(CsPair::from_binary(&kk, w), CsPair::from_binary(base, w));
    m2.start(
        CsPair::from_binary(&kk, w),
        CsPair::from_binary(&BigUint::from(1u32), w),
    );
    let pre_cycles = run_parallel(&mut m1, Some(&mut m2));
    let mut p = m1.result().clone();
    let mut r = m2.result().clone();

    // Exponent loop, least significant bit first.
    let mut loop_cycles = 0u64;
    for bit in crate::exponent_bits_lsb_first(exp) {
        m1.start(p.clone(), p.clone());
        if bit {
            m2.start(r.clone(), p.clone());
            loop_cycles += run_parallel(&mut m1, Some(&mut m2));
            r = m2.result().clone();
        } else {
            // multiplier 2 idles; the step takes the same clocks
            loop_cycles += run_parallel(&mut m1, None);
        }
        p = m1.result().clone();
    }

    // Post-processing: M1, M2 = MontMult(1, R).
    m1.start(CsPair::from_binary(&BigUint::from(1u32), w), r);
    let post_cycles = run_parallel(&mut m1, None);

    // Final addition M = M1 + M2 on the BRFA (with serial reduction).
    let (result, add_cycles) = final_add_reduce(m1.result(), m1.modulus(), k + 1);
    let cycles = pre_cycles + loop_cycles + post_cycles + add_cycles;
    Ok(CsaExpReport {
        result,
        r_bits,
        pre_cycles,
        loop_cycles,
        post_cycles,
        add_cycles,
        cycles,
        total_cycles: cycles,
    })
}
