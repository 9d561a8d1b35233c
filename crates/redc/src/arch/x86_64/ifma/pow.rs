//! The dual exponentiations on the kernel: `pow_dual` (fixed 5-bit windows,
//! constant time in base and exponent; `pow_dual_in` with the chain's form
//! fixed) and `pow_dual_public` (left-to-right binary for a public
//! exponent). Results are per half at most m, not yet fully reduced. The
//! window method of Shand and Vuillemin, "Fast Implementations of RSA
//! Cryptography", section 4.2, on the almost-Montgomery product.

use zeroize::Zeroize;

use crate::arch::portable52::{self, WINDOW};

use super::amm::{amm_dual, amm_form};
use super::gather::gather;
use super::lanes::{DualMod, Lanes};
use super::sqr::{sqr_dual, sqr_form, sqr_run};

// `pow_dual` takes the window's squarings in one odd-length run (its result
// in the run's second buffer).
const _: () = assert!(WINDOW % 2 == 1);

/// The dual fixed-window exponentiation: returns (x_p^ep, x_q^eq) per half,
/// at most m (not yet fully reduced), where `first` holds x R per half (R =
/// 2^(52 d)): the base in the Montgomery domain, table entry 1. Callers make
/// it with one product, amm(base, f R^2) = base f R, which also brings in a
/// blinding factor f (f = 1: `rr` itself), or with two (an input wider than
/// m, [`add_dual`](super::normalize::add_dual)). `first` may exceed 2m as long as first^2 / R < m and
/// 2m first / R < m (the products with it stay below 2m): below 2m always
/// (4m < R), below 4.1m where 17m < R. `rr` is R^2 mod m, interleaved
/// digits; exponents are u64 limbs whose lengths are public (the shorter one
/// is zero-extended).
///
/// With `PIPE`, `m` is the pipelined form of the moduli (M = m s with M = -1
/// mod 2^104; see `pipelined`, "Quotient pipelining") and `rr` is taken mod M
/// (`first` need only be congruent to x R mod the primes, `exit`, with the
/// bounds above taken for M):
/// the run works mod M, which is a multiple of m, and the last product, by
/// one, runs with `exit`, the moduli themselves: (x + Y m) / R < 1 + m for
/// any x < R. Without `PIPE`, `exit` is `m`.
///
/// `xmm` runs a plain (not pipelined) exponentiation with the quotient
/// chain in xmm registers ([`amm_dual_xmm`](super::amm::amm_dual_xmm), chosen per CPU by
/// `arch::x86_64::xmm_chain`); a pipelined one ignores it.
///
/// # Safety
/// Call only where AVX-512F, AVX-512IFMA and AVX-512VL are available.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
#[allow(clippy::too_many_arguments)]
pub(super) fn pow_dual<const NR: usize, const PIPE: bool>(
    m: &DualMod<NR>,
    exit: &DualMod<NR>,
    first: &Lanes<NR>,
    rr: &Lanes<NR>,
    ep: &[u64],
    eq: &[u64],
    dedicated_sqr: bool,
    xmm: bool,
) -> Lanes<NR> {
    if !PIPE && xmm {
        pow_dual_in::<NR, false, true>(m, exit, first, rr, ep, eq, dedicated_sqr)
    } else {
        pow_dual_in::<NR, PIPE, false>(m, exit, first, rr, ep, eq, dedicated_sqr)
    }
}

/// [`pow_dual`] with the chain's form fixed: in xmm registers when `XMM`
/// (then `PIPE` is false), else as [`amm_dual`] has it.
///
/// # Safety
/// As [`pow_dual`].
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
#[allow(clippy::too_many_arguments)]
fn pow_dual_in<const NR: usize, const PIPE: bool, const XMM: bool>(
    m: &DualMod<NR>,
    exit: &DualMod<NR>,
    first: &Lanes<NR>,
    rr: &Lanes<NR>,
    ep: &[u64],
    eq: &[u64],
    dedicated_sqr: bool,
) -> Lanes<NR> {
    let mut one = Lanes::<NR>::ZERO;
    one.0[0][0] = 1;
    one.0[0][1] = 1;
    let mut table = vec![Lanes::<NR>::ZERO; 1 << WINDOW];
    amm_form::<NR, false, PIPE, XMM>(&mut table[0], rr, &one, m);
    table[1] = *first;
    for k in 2..(1 << WINDOW) {
        let mut x = Lanes::<NR>::ZERO;
        if k % 2 == 0 {
            sqr_form::<NR, PIPE, XMM>(&mut x, &table[k / 2], m, dedicated_sqr);
        } else {
            amm_form::<NR, false, PIPE, XMM>(&mut x, &table[k - 1], &table[1], m);
        }
        table[k] = x;
    }
    let nw = portable52::windows_for_limbs(ep.len().max(eq.len()));
    let mut x = Lanes::<NR>::ZERO;
    let mut y = Lanes::<NR>::ZERO;
    let mut g = Lanes::<NR>::ZERO;
    let top = (nw - 1) * WINDOW;
    gather(
        &mut x,
        &table,
        portable52::window(ep, top) as u64,
        portable52::window(eq, top) as u64,
    );
    for w in (0..nw - 1).rev() {
        // WINDOW (odd) squarings: the result is in y.
        sqr_run::<NR, PIPE, XMM>(&mut x, &mut y, m, WINDOW, dedicated_sqr);
        let pos = w * WINDOW;
        gather(
            &mut g,
            &table,
            portable52::window(ep, pos) as u64,
            portable52::window(eq, pos) as u64,
        );
        amm_form::<NR, false, PIPE, XMM>(&mut x, &y, &g, m);
    }
    amm_dual::<NR, false, false>(&mut y, &x, &one, exit);
    for e in table.iter_mut() {
        e.zeroize();
    }
    x.zeroize();
    g.zeroize();
    y
}

/// `base^exp` for a PUBLIC exponent (left-to-right binary, variable time in
/// `exp` only; constant time in the base), both halves with their own base
/// and the same exponent. Returns the Montgomery-domain result multiplied by
/// 1 (per half at most m, not yet fully reduced), like [`pow_dual`].
///
/// # Safety
/// Call only where AVX-512F, AVX-512IFMA and AVX-512VL are available.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub(super) fn pow_dual_public<const NR: usize>(
    m: &DualMod<NR>,
    base: &Lanes<NR>,
    rr: &Lanes<NR>,
    exp: &[u64],
    dedicated_sqr: bool,
) -> Lanes<NR> {
    let mut one = Lanes::<NR>::ZERO;
    one.0[0][0] = 1;
    one.0[0][1] = 1;
    let mut bm = Lanes::<NR>::ZERO;
    amm_dual::<NR, false, false>(&mut bm, base, rr, m);
    let bits = crate::limb::bit_len_vartime(exp);
    // The exponent's top bit (public) starts the accumulator at the base
    // itself: no product by R mod m, no squaring of one.
    let mut x = Lanes::<NR>::ZERO;
    if bits == 0 {
        amm_dual::<NR, false, false>(&mut x, rr, &one, m); // R mod m: the Montgomery form of 1
    } else {
        x = bm;
    }
    let mut y = Lanes::<NR>::ZERO;
    for i in (0..bits.saturating_sub(1)).rev() {
        sqr_dual::<NR, false>(&mut y, &x, m, dedicated_sqr);
        if (exp[i / 64] >> (i % 64)) & 1 == 1 {
            amm_dual::<NR, false, false>(&mut x, &y, &bm, m);
        } else {
            x = y;
        }
    }
    amm_dual::<NR, false, false>(&mut y, &x, &one, m);
    bm.zeroize();
    x.zeroize();
    y
}
