//! Where the AVX2 exponentiation is the faster one: per accumulator register
//! count, as requested through `REDC_KERNEL`, or measured once per process
//! against the MULX/ADX squaring on fixed public inputs (no key is
//! involved). The choice depends on the CPU and the modulus's size, both
//! public.

use std::sync::OnceLock;

use super::{Avx2Modulus, MAX_VL_VECTORS, MIN_VECTORS, max_vectors, registers};
use crate::arch::portable28::{self, digits_for_bits};
use crate::arch::settings::{self, Request};

/// Whether [`crate::exp::MontEngine::new`] gives a modulus of `bits` bits
/// the AVX2 exponentiation: the kernels fit it ([`Avx2Modulus::fits`]) and,
/// unless `REDC_KERNEL=avx2` asks for them, their product measured faster
/// than the MULX/ADX squaring at its register count ([`calibrate`]), or the
/// CPU has no ADX path to compare with.
pub fn pays(bits: usize) -> bool {
    if !Avx2Modulus::fits(bits) || super::super::cpu::avx2().is_none() {
        return false;
    }
    if matches!(settings::request(), Request::Avx2) || !super::super::adx_available() {
        return true;
    }
    static CHOICE: [OnceLock<bool>; MAX_VL_VECTORS + 1] = [const { OnceLock::new() }; MAX_VL_VECTORS + 1];
    let v = registers(digits_for_bits(bits));
    *CHOICE[v].get_or_init(|| {
        let (avx2, adx) = calibrate(v);
        avx2 < adx
    })
}

/// The measurement behind [`pays`]: (AVX2 product, ADX squaring)
/// nanoseconds per call at `v` registers (MIN_VECTORS..=[`max_vectors`]), on a
/// fixed public modulus of the largest size `v` serves (28 (4 v - 3) - 2
/// bits, the kernels over m itself, their slowest form at that count): the
/// best of 5 interleaved runs of 64 calls, each output fed back (640 kernel
/// calls in all). (0, 0) where either path cannot run.
pub fn calibrate(v: usize) -> (f64, f64) {
    if !(MIN_VECTORS..=max_vectors()).contains(&v) || !super::super::adx_available() {
        return (0.0, 0.0);
    }
    let bits = 28 * (4 * v - 3) - 2;
    let limbs = bits.div_ceil(64);
    // Public, fixed inputs: an odd modulus of exactly `bits` bits and a base
    // below it.
    let n = super::super::calibrate::PublicModuli::new().next(bits);
    let Some(avx2) = Avx2Modulus::new_over(&n, false) else {
        return (0.0, 0.0);
    };
    let Ok(ctx) = crate::mont::MontContext::new(&n) else {
        return (0.0, 0.0);
    };
    let base: Vec<u64> = n[..limbs - 1].to_vec();
    let digits = portable28::to_digits(&base, avx2.digits());
    let (mut a, mut out, mut scratch) = (base.clone(), vec![0u64; limbs], ctx.scratch());
    a.push(0);
    const CALLS: usize = 64;
    let (mut best_avx2, mut best_adx) = (f64::MAX, f64::MAX);
    for _ in 0..5 {
        let t = std::time::Instant::now();
        core::hint::black_box(avx2.chain_digits(&digits, None, CALLS));
        best_avx2 = best_avx2.min(t.elapsed().as_nanos() as f64 / CALLS as f64);
        let t = std::time::Instant::now();
        for _ in 0..CALLS / 2 {
            super::super::mont_sqr_adx(&mut out, &a, &a, &n, ctx.n0(), &mut scratch);
            super::super::mont_sqr_adx(&mut a, &out, &out, &n, ctx.n0(), &mut scratch);
        }
        core::hint::black_box(&a);
        best_adx = best_adx.min(t.elapsed().as_nanos() as f64 / CALLS as f64);
    }
    (best_avx2, best_adx)
}
