//! The dual IFMA kernel's squaring choice per register count: as
//! requested through `REDC_KERNEL`, or measured once per process on fixed
//! public inputs (no key is involved).

use std::sync::OnceLock;

use crate::arch::portable52::Modulus52;
use crate::arch::settings::{self, Request, SqrChoice};

use super::ifma::{DualMod, Lanes, MAX_NR};
use super::*;

/// Whether the dual IFMA kernel squares with the dedicated squaring at `nr`
/// registers (1..=MAX_NR): as requested, or measured once per process (see
/// [`calibrate_sqr`]).
pub fn dedicated_sqr(nr: usize) -> bool {
    match settings::request() {
        Request::Ifma(SqrChoice::Dedicated) => true,
        Request::Ifma(SqrChoice::AsProduct) => false,
        _ => {
            static CHOICE: [OnceLock<bool>; MAX_NR + 1] = [const { OnceLock::new() }; MAX_NR + 1];
            *CHOICE[nr.min(MAX_NR)].get_or_init(|| {
                let (dedicated, product) = calibrate_sqr(nr);
                dedicated <= product
            })
        }
    }
}

/// The calibration behind [`dedicated_sqr`]: (dedicated, product) nanoseconds
/// per dual square at `nr` registers, the best of 5 runs of 64 squarings on
/// a fixed public modulus pair (no key is involved). About 0.2 ms at 10
/// registers.
pub fn calibrate_sqr(nr: usize) -> (f64, f64) {
    let Some(ifma) = cpu::ifma() else {
        return (0.0, 0.0);
    };
    if nr == 0 || nr > MAX_NR {
        return (0.0, 0.0);
    }
    // Public, fixed inputs: odd moduli of 52 d - 2 bits, a base below them.
    let d = 4 * nr;
    let mut moduli = PublicModuli::new();
    let mut modulus = || Modulus52::new(&moduli.next(52 * d - 2)).expect("odd, large");
    let (p, q) = (modulus(), modulus());
    with_nr!(nr, NR => {
        let m = DualMod::<NR>::new(&p, &q);
        let mut a = Lanes::<NR>::interleave(&p.m[..d - 1], &q.m[..d - 1]);
        let mut y = Lanes::<NR>::ZERO;
        let mut time = |dedicated: bool| {
            let t = std::time::Instant::now();
            for _ in 0..32 {
                ifma.sqr_dual::<NR, false>(&mut y, &a, &m, dedicated);
                ifma.sqr_dual::<NR, false>(&mut a, &y, &m, dedicated);
            }
            t.elapsed().as_nanos() as f64 / 64.0
        };
        let (mut best_d, mut best_p) = (f64::MAX, f64::MAX);
        for _ in 0..5 {
            best_d = best_d.min(time(true));
            best_p = best_p.min(time(false));
        }
        (best_d, best_p)
    })
}

/// Fixed public moduli for the calibrations (no key is involved): a
/// xorshift stream cut into odd numbers of an exact bit length.
pub(super) struct PublicModuli(u64);

impl PublicModuli {
    pub(super) fn new() -> PublicModuli {
        PublicModuli(0x9e37_79b9_7f4a_7c15)
    }

    /// The next odd modulus of exactly `bits` bits (>= 2), as limbs.
    pub(super) fn next(&mut self, bits: usize) -> Vec<u64> {
        let limbs = bits.div_ceil(64);
        let mut n: Vec<u64> = (0..limbs)
            .map(|_| {
                self.0 ^= self.0 << 13;
                self.0 ^= self.0 >> 7;
                self.0 ^= self.0 << 17;
                self.0
            })
            .collect();
        n[0] |= 1;
        let top = bits - 64 * (limbs - 1);
        n[limbs - 1] = (n[limbs - 1] & (u64::MAX >> (64 - top))) | (1 << (top - 1));
        n
    }
}
