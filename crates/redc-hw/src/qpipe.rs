//! Shand and Vuillemin's radix-2^p Hensel modular product with quotient
//! pipelining (Shand and Vuillemin, "Fast Implementations of RSA Cryptography", section 6 Alg. 6, section 8.2,
//! and the carry-completion conversion of section 8.1).
//!
//! ## Recurrence (section 8.2)
//! With `β = 2^p`, `r_t = (P'[t] + A·b_t) mod β`, `R_t = P'[t] + A·b_t − r_t`
//! and a quotient `q'_t = r_t·μ' mod β^(d+1)`, `μ' = −M⁻¹ mod β^(d+1)` (so
//! `r_t + q'_t·M ≡ 0 mod β^(d+1)`), the datapath computes
//! `P'[t+1] = R_t/β + (r_(t−d) + q'_(t−d)·M)/β^(d+1)`: the quotient of
//! iteration `t` is used `d` clocks later, which is what lets the quotient
//! distribution be pipelined.  After `n + d` iterations (`b_t = 0` for
//! `t >= n`) the result is realigned: `P = β^d·P'[n+d] + r_(n+d−1)·β^(d−1) +
//! … + r_n`.
//!
//! Invariant (proved in docs/HARDWARE.md): with
//! `V_t = β^t·P'[t] + Σ_{s=t−d}^{t−1} β^s·r_s`,
//! `V_t = A·[b_(t−1)…b_0] + M·Σ_{s<t−d} β^s·q'_s`; at `t = n + d` this gives
//! `P = (A·B + M·Q)/β^n ≡ A·B·β^(−n) (mod M)`, the same `R = β^n` as the
//! unpipelined product (`d = 0` is exactly Alg. 6).
//!
//! ## Registers
//! * `P'` in carry-save form `(S, C)` (section 8.1: the PAM keeps partial
//!   sums in carry-save form).  Each clock: one 3:2 level adds `A·b_t` (the
//!   multiplier array's output), a `p`-bit adder forms `r_t` and its carry
//!   from the low digits, and two 3:2 levels add the delayed
//!   `(r + q'·M)/β^(d+1)` and that carry to the shifted pair.
//! * A delay line of `d + 1` entries `(r_t, q'_t)`: the quotient pipeline.
//! * The realignment register receives the `d` trailing `r_t`.
//!
//! ## Digits and bounds
//! `n = ⌈(bitlen(M) + 2)/p⌉` so that `4M < β^n` (condition (5) of 003).  For
//! `d = 0` and `A, B < 2M` the output is `< 2M`.  For `d > 0` the quotient
//! `Q` may reach `β^(n+d)`, so the output is only bounded by
//! `A·B/β^n + β^d·M` (this is the paper's "d extra bits of precision"); the
//! model reduces it with Euclid's bit-serial division ([`crate::euclid`]) so
//! that `montmul` returns a fully reduced value.  This reduction, the `d`
//! realignment clocks and the carry-completion clocks are in `total_cycles`;
//! `cycles` is the `n + d` iterations the paper counts.

use crate::HwError;
use num_bigint::BigUint;
use num_traits::Zero;
use std::collections::VecDeque;

/// Largest supported digit size `p`.
pub const MAX_RADIX_BITS: u32 = 64;
/// Largest supported pipelining depth `d`.
pub const MAX_DEPTH: u32 = 16;

/// Report of one quotient-pipelined product.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QpipeReport {
    /// `a·b·β^(−n) mod M`, fully reduced
    pub result: BigUint,
    /// digit size `p` (`β = 2^p`)
    pub radix_bits: u32,
    /// pipelining depth `d`
    pub depth: u32,
    /// number of multiplier digits `n`
    pub digits: u64,
    /// `log2 R = p·n`
    pub r_bits: u64,
    /// iterations of the datapath, `n + d` (section 8.2)
    pub cycles: u64,
    /// realignment clocks (`d`)
    pub realign_cycles: u64,
    /// carry-completion clocks (section 8.1)
    pub carry_cycles: u64,
    /// Euclidean reduction clocks
    pub reduce_cycles: u64,
    /// everything simulated
    pub total_cycles: u64,
}

fn csa(x: &BigUint, y: &BigUint, z: &BigUint) -> (BigUint, BigUint) {
    let s = x ^ y ^ z;
    let c = ((x & y) | (x & z) | (y & z)) << 1u32;
    (s, c)
}

/// One Montgomery product with digit size `p` and pipelining depth `d` for
/// the odd modulus `m >= 3`; requires `a, b < m`.
pub fn montmul(m: &BigUint, a: &BigUint, b: &BigUint, p: u32, d: u32) -> Result<QpipeReport, HwError> {
    crate::check_modulus(m)?;
    if !(1..=MAX_RADIX_BITS).contains(&p) {
        return Err(HwError::RadixOutOfRange {
            bits: p,
            min: 1,
            max: MAX_RADIX_BITS,
        });
    }
    if d > MAX_DEPTH {
        return Err(HwError::DepthOutOfRange {
            depth: d,
            max: MAX_DEPTH,
        });
    }
    crate::check_reduced(a, m, "a")?;
    crate::check_reduced(b, m, "b")?;
    let n = (m.bits() + 2).div_ceil(p as u64);
    let mask = (BigUint::from(1u32) << p) - 1u32;
    let qmod = BigUint::from(1u32) << (p * (d + 1));
    let minv = crate::mod_inverse(&(m % &qmod), &qmod)?;
    let mu = (&qmod - minv) % &qmod; // -M^-1 mod beta^(d+1)
    let shift = p as u64 * (d as u64 + 1);

    let (mut s, mut c) = (BigUint::zero(), BigUint::zero());
    let mut delay: VecDeque<(BigUint, BigUint)> = VecDeque::with_capacity(d as usize + 1);
    let mut cycles = 0u64;
    for t in 0..(n + d as u64) {
        cycles += 1; // one datapath clock
        let bt = if t < n {
            (b >> (p as u64 * t)) & &mask
        } else {
            BigUint::zero()
        };
        let x = a * &bt; // multiplier array output A·b_t
        let (s1, c1) = csa(&s, &c, &x);
        let low = (&s1 & &mask) + (&c1 & &mask); // p-bit adder
        let r = &low & &mask;
        let cout = &low >> p;
        let q = (&r * &mu) % &qmod; // quotient digit, d+1 digits wide
        delay.push_back((r, q));
        let y = if delay.len() > d as usize {
            match delay.pop_front() {
                Some((r0, q0)) => {
                    let v: BigUint = r0 + q0 * m;
                    // r + q'M = 0 mod beta^(d+1) by the choice of q': the shift
                    // drops nothing. Checked in every build.
                    if !(&v % &qmod).is_zero() {
                        return Err(HwError::Overflow("qpipe: r + q'M not divisible by beta^(d+1)"));
                    }
                    v >> shift
                }
                None => BigUint::zero(),
            }
        } else {
            BigUint::zero()
        };
        let (u, v) = csa(&(s1 >> p), &(c1 >> p), &y);
        let (s2, c2) = csa(&u, &v, &cout);
        s = s2;
        c = c2;
    }
    // Realignment: shift P' left one digit per clock, inserting r_(n+d-1) .. r_n.
    let mut realign_cycles = 0u64;
    while let Some((r, _)) = delay.pop_back() {
        realign_cycles += 1;
        s = (s << p) | r;
        c <<= p;
    }
    let (value, carry_cycles) = crate::carry::complete(&s, &c);
    let width = m.bits() + p as u64 * d as u64 + 1;
    let (result, reduce_cycles) = crate::euclid::reduce(&value, m, width.max(value.bits()));
    Ok(QpipeReport {
        result,
        radix_bits: p,
        depth: d,
        digits: n,
        r_bits: p as u64 * n,
        cycles,
        realign_cycles,
        carry_cycles,
        reduce_cycles,
        total_cycles: cycles + realign_cycles + carry_cycles + reduce_cycles,
    })
}
