//! The radix-2^28 lane driver ([`super::lanes28`]): four or eight
//! exponentiations at once, one per lane, for batch signing on CPUs without
//! AVX-512 IFMA (two signatures' CRT halves a run in 256-bit registers,
//! four in 512-bit ones). Numbers enter as u64 limbs and leave fully
//! reduced; every digit copy is wiped. Constant time in bases, exponents
//! and moduli; only digit counts, the lane count and the exponents' length
//! (public) steer the work.

use core::arch::x86_64::{__m256i, __m512i};

use zeroize::Zeroize;

use crate::arch::portable28::{self, Modulus28};

use super::cpu::{self, Avx512};
use super::lanes28::{self, Mb, MbMod, Vector};

/// Whether the lane kernels serve moduli of `d` radix-2^28 digits.
pub fn lanes28_runs(d: usize) -> bool {
    (lanes28::MIN_D..=lanes28::MAX_D).contains(&d)
}

/// The lane count batch signing takes in this process: 8 where the AVX2
/// family is chosen (AVX2 present and not masked, IFMA absent or masked,
/// the kernel request automatic or `avx2`) and AVX-512F is present and not
/// masked, 4 with AVX2 alone, None otherwise.
pub fn lanes28_available() -> Option<usize> {
    if !cpu::avx2_family_available() || cpu::avx2().is_none() {
        return None;
    }
    Some(if Avx512::get().is_some() { 8 } else { 4 })
}

/// `(bases[l] factors[l])^exps[l] mod moduli[l]` per lane (factors 1 where
/// `factors` is None), each fully reduced in its modulus's limb count: the
/// lane kernels' fixed-window exponentiation, the factor (a blinding
/// factor) entering with the base. Four lanes (256-bit registers, AVX2) or
/// eight (512-bit, AVX-512F): every slice has that many entries. All
/// moduli of one digit count ([`lanes28_runs`]), all exponents of one limb
/// count; bases and factors below their moduli. None where the width's
/// feature is absent or masked, or when the sizes differ. Constant time in
/// the bases, factors, exponents' bits and moduli.
pub fn pow_lanes28(
    moduli: &[&Modulus28],
    bases: &[&[u64]],
    factors: Option<&[&[u64]]>,
    exps: &[&[u64]],
) -> Option<Vec<Vec<u64>>> {
    let lanes = moduli.len();
    assert!(
        bases.len() == lanes && exps.len() == lanes && factors.is_none_or(|f| f.len() == lanes),
        "one base, factor and exponent per lane"
    );
    if exps.iter().any(|e| e.len() != exps[0].len()) {
        return None;
    }
    // Bases and factors have no nonzero limb beyond their modulus's.
    for (m, b) in moduli.iter().zip(bases) {
        super::check_limbs(m.limbs.len(), b);
    }
    for (m, f) in moduli.iter().zip(factors.iter().copied().flatten()) {
        super::check_limbs(m.limbs.len(), f);
    }
    match lanes {
        4 => {
            let token = cpu::avx2()?;
            run::<__m256i>(moduli, bases, factors, |m, b, f| token.mb4_pow(m, b, f, exps))
        }
        8 => {
            cpu::avx2()?;
            let token = Avx512::get()?;
            run::<__m512i>(moduli, bases, factors, |m, b, f| token.mb8z_pow(m, b, f, exps))
        }
        _ => None,
    }
}

/// Digits in, the width's exponentiation, each lane reduced and back in u64
/// limbs.
fn run<V: Vector>(
    moduli: &[&Modulus28],
    bases: &[&[u64]],
    factors: Option<&[&[u64]]>,
    pow: impl FnOnce(&MbMod<V>, &Mb<V>, Option<&Mb<V>>) -> Mb<V>,
) -> Option<Vec<Vec<u64>>> {
    let mm = MbMod::<V>::new(moduli)?;
    let d = mm.digits();
    let base = Mb::<V>::from_limbs(d, bases);
    let factor = factors.map(|f| Mb::<V>::from_limbs(d, f));
    let y = pow(&mm, &base, factor.as_ref());
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
