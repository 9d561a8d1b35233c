//! The dual kernel's dedicated squaring: `sqr_dual` (one square, dedicated
//! or as a product, as calibrated per register count), `sqr_form` and the
//! window's run of squarings (`sqr_run`). The squaring itself is the
//! product's body with `SQR` (`amm`; its A part's triangle is `a_part!`).
//! Same bounds as the product (inputs below 2m, lanes below 2^60); Koc,
//! Acar and Kaliski, "Analyzing and Comparing Montgomery Multiplication
//! Algorithms", SOS squaring.
//!
//! # Dedicated squaring
//!
//! For a^2, step i adds only a_j a_i with j >= i: off-diagonal terms (j > i)
//! into `wa`, which is doubled where it is read (in 64-bit lanes: doubling
//! there is not limited by IFMA's 52-bit inputs), the diagonal lo/hi(a_i^2)
//! into `wn`. Registers wholly below the diagonal are skipped, so the a part
//! costs about half. A square also issues each step's N part one step late
//! (after the next step's chain), so the bracket of x0_{i+1} takes that
//! part's two terms there, lo(n2 y_{i-1}) + hi(n1 y_{i-1}), from two IFMAs of
//! its own (`amm_dual` gives the order and its measurements). [`sqr_dual`]
//! uses the dedicated squaring where the caller chose it (by request or by a
//! calibration per register count: which of the two is faster differs
//! between CPUs).

use super::amm::{STRAIGHT_MAX_NR, amm_dual_body, amm_form};
use super::lanes::{DualMod, Lanes};

/// [`sqr_dual`] in the chain's form `XMM` (as [`amm_form`]). Same safety
/// contract as [`amm_dual`](super::amm::amm_dual).
#[inline]
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub(super) fn sqr_form<const NR: usize, const PIPE: bool, const XMM: bool>(
    out: &mut Lanes<NR>,
    a: &Lanes<NR>,
    m: &DualMod<NR>,
    dedicated: bool,
) {
    if dedicated {
        amm_form::<NR, true, PIPE, XMM>(out, a, a, m)
    } else {
        amm_form::<NR, false, PIPE, XMM>(out, a, a, m)
    }
}

/// From this register count up, the window's run of dedicated squarings is
/// one function ([`sqr_run`]: the squaring's body inlined into a loop)
/// rather than one call per square. Below it, where the groups are written
/// out, each square stays a call: the inlined loop measured faster at 10
/// registers (RSA-4096) and slower at 5 and 8 (docs/PERFORMANCE.md, "IFMA
/// dual squaring: the run of squarings inlined from 9 registers").
const SQR_RUN_MIN_NR: usize = STRAIGHT_MAX_NR + 1;

/// `count` successive squarings of `x`, alternating between `x` and `y`
/// (the result is in `x` for an even count, in `y` for an odd one), with
/// the dedicated squaring or the product as `dedicated` says. From
/// [`SQR_RUN_MIN_NR`] registers up the dedicated squaring's body runs
/// inlined in one loop; else each square is a call ([`sqr_form`]). Same
/// preconditions as [`amm_dual`](super::amm::amm_dual).
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub(super) fn sqr_run<const NR: usize, const PIPE: bool, const XMM: bool>(
    x: &mut Lanes<NR>,
    y: &mut Lanes<NR>,
    m: &DualMod<NR>,
    count: usize,
    dedicated: bool,
) {
    for k in 0..count {
        let (src, dst) = if k % 2 == 0 {
            (&*x, &mut *y)
        } else {
            (&*y, &mut *x)
        };
        if dedicated && NR >= SQR_RUN_MIN_NR {
            // SAFETY: this function enables the features the body needs.
            unsafe { amm_dual_body::<NR, true, PIPE, XMM>(dst, src, src, m) }
        } else {
            sqr_form::<NR, PIPE, XMM>(dst, src, m, dedicated);
        }
    }
}

/// `out = amm(a, a)` with the dedicated squaring or the product, as the
/// caller chose for this register count (`arch::x86_64::dedicated_sqr`: the
/// better one differs between CPUs and register counts: at 10 registers
/// the window of 2 x 11 accumulators and the triangle's masks no longer fit
/// the 32 registers; docs/PERFORMANCE.md, "IFMA dual squaring: dedicated or
/// product, per register count").
///
/// # Safety
/// Call only where AVX-512F, AVX-512IFMA and AVX-512VL are available.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub(super) fn sqr_dual<const NR: usize, const PIPE: bool>(
    out: &mut Lanes<NR>,
    a: &Lanes<NR>,
    m: &DualMod<NR>,
    dedicated: bool,
) {
    sqr_form::<NR, PIPE, false>(out, a, m, dedicated);
}
