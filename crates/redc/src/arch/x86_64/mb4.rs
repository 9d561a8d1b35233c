//! The four-lane driver ([`super::avx2::mb4`]): four exponentiations at
//! once, one per lane, for batch signing on CPUs with AVX2 and without
//! AVX-512 IFMA (two signatures' CRT halves a run). Numbers enter as u64
//! limbs and leave fully reduced; every digit copy is wiped. Constant time
//! in bases, exponents and moduli; only digit counts and the exponents'
//! length (public) steer the work.

use zeroize::Zeroize;

use crate::arch::portable28::{self, Modulus28};

use super::avx2::mb4::{self, LANES, Mb4, Mb4Mod};
use super::cpu;

/// Whether the four-lane kernel serves moduli of `d` radix-2^28 digits.
pub fn mb4_runs(d: usize) -> bool {
    (mb4::MIN_D..=mb4::MAX_D).contains(&d)
}

/// Whether batch signing takes the four-lane kernel in this process: the
/// AVX2 family is chosen (AVX2 present and not masked, IFMA absent or
/// masked, the kernel request automatic or `avx2`).
pub fn mb4_available() -> bool {
    cpu::avx2_family_available() && cpu::avx2().is_some()
}

/// `(bases[l] factors[l])^exps[l] mod moduli[l]` per lane, each fully
/// reduced in its modulus's limb count: the four-lane fixed-window
/// exponentiation, the factor (a blinding factor) entering with the base.
/// All moduli of one digit count ([`mb4_runs`]), all exponents of one limb
/// count; bases and factors below their moduli. None without AVX2 (or with
/// it masked) or when the sizes differ. Constant time in the bases,
/// factors, exponents' bits and moduli.
pub fn pow_mb4_blinded(
    moduli: [&Modulus28; LANES],
    bases: [&[u64]; LANES],
    factors: [&[u64]; LANES],
    exps: [&[u64]; LANES],
) -> Option<Vec<Vec<u64>>> {
    run(moduli, bases, Some(factors), exps)
}

/// [`pow_mb4_blinded`] without factors: `bases[l]^exps[l] mod moduli[l]`.
pub fn pow_mb4(
    moduli: [&Modulus28; LANES],
    bases: [&[u64]; LANES],
    exps: [&[u64]; LANES],
) -> Option<Vec<Vec<u64>>> {
    run(moduli, bases, None, exps)
}

/// Digits in, the kernel, each lane reduced and back in u64 limbs.
fn run(
    moduli: [&Modulus28; LANES],
    bases: [&[u64]; LANES],
    factors: Option<[&[u64]; LANES]>,
    exps: [&[u64]; LANES],
) -> Option<Vec<Vec<u64>>> {
    let token = cpu::avx2()?;
    if exps.iter().any(|e| e.len() != exps[0].len()) {
        return None;
    }
    let mm = Mb4Mod::new(moduli)?;
    let d = mm.digits();
    for (m, b) in moduli.iter().zip(bases) {
        check_len(m, b);
    }
    for (m, f) in moduli.iter().zip(factors.iter().flatten()) {
        check_len(m, f);
    }
    let base = Mb4::from_limbs(d, bases);
    let factor = factors.map(|f| Mb4::from_limbs(d, f));
    let y = token.mb4_pow(&mm, &base, factor.as_ref(), &exps);
    Some(
        moduli
            .iter()
            .enumerate()
            .map(|(l, m)| {
                let mut v = y.lane(l);
                crate::arch::radix::final_reduce::<{ portable28::DIGIT_BITS }>(&m.m, &mut v);
                let r = portable28::from_digits(&v, m.limbs.len());
                v.zeroize();
                r
            })
            .collect(),
    )
}

/// A base or factor has no nonzero limb beyond its modulus's (an OR over
/// all of them, not a short-circuit on secret values).
fn check_len(m: &Modulus28, x: &[u64]) {
    let extra = x
        .get(m.limbs.len()..)
        .unwrap_or(&[])
        .iter()
        .fold(0, |a, &w| a | w);
    assert!(extra == 0, "base longer than its modulus");
}
