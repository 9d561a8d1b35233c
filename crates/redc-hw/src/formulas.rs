//! The papers' closed forms.  Only tests and [`crate::reproduce`] use them;
//! the models count their cycles by simulation.

/// 004 Table 4: clocks of one exponentiation with a `k`-bit modulus and a
/// `ke`-bit exponent, `(k + 2)(ke + 3)`.
pub fn mcivor_exp_cycles(k: u64, ke: u64) -> u64 {
    (k + 2) * (ke + 3)
}

/// 004 Table 4, decryption with CRT: `(k/2 + 2)(kd/2 + 3)`.
pub fn mcivor_crt_cycles(k: u64, kd: u64) -> u64 {
    (k / 2 + 2) * (kd / 2 + 3)
}

/// 004 Table 1: clocks of one product, `k + 1` (Alg. 2) or `k + 2` (Alg. 3).
pub fn mcivor_mult_cycles(k: u64, four_to_two: bool) -> u64 {
    if four_to_two { k + 2 } else { k + 1 }
}

/// This crate's own count for the 004 exponentiator (see
/// [`crate::csa_exp`]): `(k + 3 + x)(ke + 2) + k + 1`, `x = 1` for Alg. 3.
pub fn model_csa_exp_cycles(k: u64, ke: u64, four_to_two: bool) -> u64 {
    let per = k + 3 + u64::from(four_to_two);
    per * (ke + 2) + k + 1
}

/// 002 eq. (1): `K = l·[2(m + 3) + 1] + m + 2`.
pub fn zhao_eq1(l: u64, m: u64) -> u64 {
    l * (2 * (m + 3) + 1) + m + 2
}

/// 003 section 4.2: expected products of the β-ary method with odd powers,
/// `β/2 + k − p + (k/p)(β − 1)/β`, `β = 2^p`.
pub fn shand_beta_ary(k: u64, p: u32) -> f64 {
    let beta = (1u64 << p) as f64;
    beta / 2.0 + k as f64 - p as f64 + (k as f64 / p as f64) * (beta - 1.0) / beta
}

/// 003 section 8.2: iterations of the quotient-pipelined product, `n + d`.
pub fn shand_qpipe_iterations(n: u64, d: u64) -> u64 {
    n + d
}
