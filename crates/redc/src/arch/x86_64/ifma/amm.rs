//! The dual almost-Montgomery product's body: both CRT halves at once, d =
//! 4 NR steps of operand scanning into a fixed-position accumulator window
//! (Koc, Acar and Kaliski, "Analyzing and Comparing Montgomery
//! Multiplication Algorithms"), inputs and outputs below 2m with no final
//! subtraction (Zhao, Wang, Lu and Dai, "Hierarchical Optimizations for High
//! Speed Implementation of Modular Exponentiation in ASIC", Algorithm 1).
//! The same body runs the dedicated squaring (`SQR`, see `sqr`), the
//! pipelined form (`PIPE`, see `pipelined`) and the xmm chain (`XMM`, see
//! `chain`).
//!
//! # Multiplication: operand scanning into a fixed-position window
//!
//! d = 4 NR steps (d is a multiple of 4; see `portable52::digits_for_bits`).
//! Step i = 4g + s adds a_j b_i and n_j y_i at positions i + j (lo halves)
//! and i + j + 1 (hi halves). The accumulator does not move: the operands do.
//! `Shifted` (n, once per key) and `ShiftedA` (a, per product; shifts 0 and
//! 4 read `a` in place) hold the operands shifted up by 0..=4 digits, so each
//! step is, for
//! every register r of a window of NR + 1 registers (slot r = positions
//! 4(g + r)..+3), two IFMAs into `wa[r]` (the a b part) and two into `wn[r]`
//! (the n y part): no VALIGNQ per step, and no register chains more than two
//! IFMAs per step (8 cycles). Every 4 steps the window slides one register
//! (register renaming in the unrolled code). The modulus rows are read from
//! memory in the loop, not hoisted: hoisted, they do not fit the registers and
//! the compiler copies them to the stack on every product (30 rows at d = 20).
//!
//! # Lane bound (no overflow of the 64-bit lanes)
//!
//! Every lane starts at 0 (`wn`: at the bias, 0 when pipelined) and only receives IFMA halves (each < 2^52). Per
//! step a position receives at most lo + hi of one a b (or a_i a_j) product and
//! lo + hi of one n y product, i.e. < 4 * 2^52 over wa and wn, and it is live
//! for at most d + 1 steps; with wa doubled for a square the sum stays below
//! 6 (d + 1) 2^52 <= 246 * 2^52 for d <= 40; the bias 2^52 - 1 and x0's one
//! carry (< 2^8) keep it below 248 * 2^52 < 2^60. No lane overflows.
//!
//! # Almost-Montgomery bound
//!
//! The result is (a b + Y m) / R with Y < R = 2^(52 d); for a, b < 2m and
//! 4m < R it is below 2m (proof in `arch::portable52`), so it fits d digits
//! and outputs are valid inputs. d = 4 ceil((bits + 2) / 208) guarantees 4m < R.

use core::arch::x86_64::*;

use crate::arch::portable52::MASK;

use super::lanes::{DualMod, Lanes, shift_copies};
use super::normalize::normalize;
use super::opaque::{opaque, opaque_mask};
use super::{MAX_NR, W};

/// Up to this register count the modulus rows are kept from loop hoisting
/// (`opaque`); above it (9 and 10 registers, where the window alone takes 22
/// of the 32 registers) the compiler schedules them itself, which measured
/// faster (docs/PERFORMANCE.md, "IFMA dual product: modulus rows kept from
/// hoisting up to 8 registers"). Either way the results are the same.
const OPAQUE_MAX_NR: usize = 8;

/// Up to this register count [`amm_dual`] runs its groups written out,
/// without a loop over them: each group a copy with g a constant (for a
/// square the triangle's register choices and masks fold away) and the
/// window sliding by register renaming, where a loop slid it with one
/// register move per window register per group (moves take the IFMA ports
/// on Intel). Above it (RSA-4096's 10 registers) the loop stays, the
/// window no longer fitting the registers either way (written out measured
/// slower there), and squares get one copy of the loop body per group, so
/// that the triangle's masks are constants. The measurements:
/// docs/PERFORMANCE.md, "IFMA dual product: groups written out up to 8
/// registers".
///
/// See also [`WRITTEN_OUT`].
pub(super) const STRAIGHT_MAX_NR: usize = 8;

/// Whether groups are written out at all (up to [`STRAIGHT_MAX_NR`]) and
/// squares get a copy per group in the loop above it. Not in the library's
/// own unit-test build (`cfg(test)`) nor in the fuzz targets' (`cfg(fuzzing)`,
/// set by cargo-fuzz): there every register count runs the loop, squares
/// with g at run time. The results are the same, bit for bit, and those
/// builds are CI's, whose compile time the written-out groups lengthen
/// (docs/PERFORMANCE.md, "IFMA kernels: the group loop in the unit-test
/// and fuzz builds"). The integration tests, the benchmarks, the
/// constant-time harnesses and every binary use the library as shipped,
/// written out.
const WRITTEN_OUT: bool = !cfg!(test) && !cfg!(fuzzing);

/// The A part of step i = 4 g + S (S a literal, so every register index and
/// shuffle constant is static; g is public): a_j b_i at positions i + j (lo)
/// and i + j + 1 (hi), or for a square the terms with j >= i. `$off` = 1
/// writes the registers one slot up: the next group's first A part, issued
/// before the window slides.
macro_rules! a_part {
    ($S:literal, $g:expr, $off:expr, $st:ident, $ash:ident, $src:expr, $nr:expr, $sqr:expr) => {{
        const S: usize = $S;
        let g: usize = $g;
        let i = 4 * g + S;
        let bi = bcast_digit!($src, i);
        if !$sqr {
            for_r!($nr, |r| {
                if !(S == 0 && r == $nr) {
                    $st.wa[r + $off] = _mm512_madd52lo_epu64($st.wa[r + $off], ld!($ash.row(S, r)), bi);
                }
                if !(S == 3 && r == 0) {
                    $st.wa[r + $off] = _mm512_madd52hi_epu64($st.wa[r + $off], ld!($ash.row(S + 1, r)), bi);
                }
            });
        } else {
            // Squaring: only j >= i. The off-diagonal terms (j > i) go to wa, which
            // is doubled when read; the diagonal a_i^2 (lo at 2i, hi at 2i + 1) to wn.
            // Lane pair k of operand register r holds digit j = 4r + k - S (lo) or
            // 4r + k - S - 1 (hi); j > i there when k > e with e as below.
            let thr = (4 * g + 2 * S) as isize;
            for_r!($nr, |r| {
                let e = thr - 4 * r as isize;
                if e < 0 {
                    $st.wa[r + $off] = _mm512_madd52lo_epu64($st.wa[r + $off], ld!($ash.row(S, r)), bi);
                } else if e <= 3 {
                    let lo_row = ld!($ash.row(S, r));
                    if e < 3 {
                        let k = $st.above[e as usize];
                        $st.wa[r + $off] = _mm512_mask_madd52lo_epu64($st.wa[r + $off], k, lo_row, bi);
                    }
                    $st.wn[r + $off] =
                        _mm512_mask_madd52lo_epu64($st.wn[r + $off], $st.pair[e as usize], lo_row, bi);
                }
                let e = e + 1;
                if e < 0 {
                    $st.wa[r + $off] = _mm512_madd52hi_epu64($st.wa[r + $off], ld!($ash.row(S + 1, r)), bi);
                } else if e <= 3 {
                    let hi_row = ld!($ash.row(S + 1, r));
                    if e < 3 {
                        let k = $st.above[e as usize];
                        $st.wa[r + $off] = _mm512_mask_madd52hi_epu64($st.wa[r + $off], k, hi_row, bi);
                    }
                    $st.wn[r + $off] =
                        _mm512_mask_madd52hi_epu64($st.wn[r + $off], $st.pair[e as usize], hi_row, bi);
                }
            });
        }
    }};
}

/// The state of one product: accumulator window (slot r = positions
/// 4(g + r)..4(g + r) + 3 in group g), the a part (wa) and the n part plus
/// the diagonal of a square (wn) kept apart so that no register chains more
/// than two IFMAs per step, and the broadcast quotient chain.
struct State<const NR: usize> {
    wa: [__m512i; W],
    wn: [__m512i; W],
    a0: __m512i,
    x0: __m512i,
    c: __m512i,
    k0: __m512i,
    n0: __m512i,
    n1: __m512i,
    n2: __m512i,
    /// y of the previous step (zero before step 0).
    y_prev: __m512i,
    /// Every position's start in `wn`: 2^52 - 1, or 0 when pipelined.
    bias: __m512i,
    /// The chain in xmm (`chain_xmm!`): x0, c, k0, n0..n2, a0 and y_prev
    /// as one (p, q) pair each.
    x0x: __m128i,
    cx: __m128i,
    k0x: __m128i,
    n0x: __m128i,
    n1x: __m128i,
    n2x: __m128i,
    a0x: __m128i,
    yx_prev: __m128i,
    /// The squaring's lane masks (lane pairs above pair e, and pair e),
    /// hidden from the compiler (`opaque_mask`) so that it keeps them in
    /// mask registers and issues masked IFMAs, not IFMA + blend.
    above: [__mmask8; 4],
    pair: [__mmask8; 4],
}

/// `out = amm(a, b)` (or `amm(a, a)` when `SQR`, the dedicated squaring; `b`
/// unread), both halves at once, d = 4 NR steps. Preconditions (callers):
/// digits below 2^52, values below 2m per half, `m.d == 4 NR`.
///
/// # Safety
/// Call only where AVX-512F, AVX-512IFMA and AVX-512VL are available
/// (outside this family, through `Ifma::amm_dual`, which takes the token);
/// the function itself has no other hazard.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub(super) fn amm_dual<const NR: usize, const SQR: bool, const PIPE: bool>(
    out: &mut Lanes<NR>,
    a: &Lanes<NR>,
    b: &Lanes<NR>,
    m: &DualMod<NR>,
) {
    // SAFETY: this function enables the features the body needs.
    unsafe { amm_dual_body::<NR, SQR, PIPE, false>(out, a, b, m) }
}

/// [`amm_dual`] (not pipelined) with the quotient chain in xmm registers
/// (`chain`'s module comment, "The quotient chain in xmm"): the same result, bit for
/// bit. Same preconditions.
///
/// # Safety
/// As [`amm_dual`].
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub(super) fn amm_dual_xmm<const NR: usize, const SQR: bool>(
    out: &mut Lanes<NR>,
    a: &Lanes<NR>,
    b: &Lanes<NR>,
    m: &DualMod<NR>,
) {
    // SAFETY: this function enables the features the body needs.
    unsafe { amm_dual_body::<NR, SQR, false, true>(out, a, b, m) }
}

/// [`amm_dual`], or [`amm_dual_xmm`] when `XMM` (then `PIPE` is false).
/// Same safety contract.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub(super) fn amm_form<const NR: usize, const SQR: bool, const PIPE: bool, const XMM: bool>(
    out: &mut Lanes<NR>,
    a: &Lanes<NR>,
    b: &Lanes<NR>,
    m: &DualMod<NR>,
) {
    if XMM {
        amm_dual_xmm::<NR, SQR>(out, a, b, m)
    } else {
        amm_dual::<NR, SQR, PIPE>(out, a, b, m)
    }
}

/// The body of [`amm_dual`], inlined into its callers ([`amm_dual`],
/// [`sqr_run`](super::sqr::sqr_run)).
///
/// # Safety
/// Call only from functions that enable AVX-512F, AVX-512IFMA and AVX-512VL.
#[inline(always)]
#[allow(unused_unsafe)] // the macros' own `unsafe` blocks, inside this one
pub(super) unsafe fn amm_dual_body<const NR: usize, const SQR: bool, const PIPE: bool, const XMM: bool>(
    out: &mut Lanes<NR>,
    a: &Lanes<NR>,
    b: &Lanes<NR>,
    m: &DualMod<NR>,
) {
    // SAFETY: the caller enables AVX-512F, AVX-512IFMA and AVX-512VL (this
    // function's contract); every intrinsic and callee below needs no more.
    unsafe {
        assert!(m.d == 4 * NR && NR <= MAX_NR && !(XMM && PIPE));
        let zero = _mm512_setzero_si512();
        let src = if SQR { a } else { b };
        let a0 = ld!(&a.0[0]);
        // The bias of X (see the chain), none in the pipelined form.
        let bias = if PIPE {
            zero
        } else {
            _mm512_set1_epi64(MASK as i64)
        };
        let mut st = State::<NR> {
            wa: [zero; W],
            // Every position starts at 2^52 - 1 in `wn` (the bias of X; removed
            // from the result positions at the end).
            wn: [bias; W],
            a0: _mm512_shuffle_i64x2::<0>(a0, a0),
            x0: zero,
            c: zero,
            k0: ld!(&m.k0.0[0]),
            n0: bcast_digit!(m.n, 0),
            n1: bcast_digit!(m.n, 1),
            n2: bcast_digit!(m.n, 2),
            y_prev: zero,
            bias,
            x0x: _mm_setzero_si128(),
            cx: _mm_setzero_si128(),
            k0x: _mm512_castsi512_si128(ld!(&m.k0.0[0])),
            n0x: bpair!(m.n, 0),
            n1x: bpair!(m.n, 1),
            n2x: bpair!(m.n, 2),
            a0x: _mm512_castsi512_si128(a0),
            yx_prev: _mm_setzero_si128(),
            above: core::array::from_fn(|e| opaque_mask((0xffu16 << (2 * (e + 1))) as u8)),
            pair: core::array::from_fn(|e| opaque_mask(0b11 << (2 * e))),
        };
        let ash = shift_copies(a);
        // Position 0 in full before step 0, biased: lo(a_0 b_0) + 2^52 - 1.
        if XMM {
            st.x0x = _mm_madd52lo_epu64(_mm512_castsi512_si128(st.bias), st.a0x, bpair!(src, 0));
        } else {
            st.x0 = _mm512_madd52lo_epu64(st.bias, st.a0, bcast_digit!(src, 0));
        }
        a_part!(0, 0, 0, st, ash, src, NR, SQR);
        // Program order per step i of a product: the chain of i, its N part, the
        // A part of i + 1 (which does not wait for y_i; issued after the chain,
        // it cannot take the chain's ports first). Of a square: the chain of i,
        // the N part of i - 1, the A part of i + 1; the N part of a group's last
        // step is issued after the window slid (one slot down), the last one
        // after the loop. The square's order costs two IFMAs per step (`chain!`)
        // and keeps the IFMAs that wait on y_{i-1} younger than the chain of i,
        // so they cannot take the ports ahead of it (schedulers pick the oldest
        // ready instruction; that this is why it helps is our reading, not a
        // port-counter measurement: the guests have no PMU). That order measured
        // faster for squares and not for products (docs/PERFORMANCE.md, "IFMA
        // dual product: dedicated 20-digit square and the late N part"), so
        // each keeps its own. Whether a square runs dedicated or as a
        // product is calibrated per register count (`arch::x86_64::dedicated_sqr`), so
        // a CPU where this order loses falls back to the product.
        // `$late` is the N part a square issues after the chain of step `$S`:
        // that of step S - 1 (for S = 0, the previous group's last step).
        macro_rules! step {
        ($S:literal, $g:expr, $m:ident, |$y:ident| $late:block) => {{
            let $y = st.y_prev;
            if XMM {
                chain_xmm!($S, $g, st, src, NR, SQR);
            } else if PIPE {
                chain!($S, $g, st, src, NR, SQR, true);
            } else {
                chain!($S, $g, st, src, NR, SQR, false);
            }
            if !SQR {
                n_part!($S, 3, 0, st, st.y_prev, $m, NR);
            } else $late
        }};
    }
        macro_rules! group {
            ($g:expr, $m:ident) => {{
                step!(0, $g, $m, |y| {
                    if $g > 0 {
                        n_part!(3, 3, -1, st, y, $m, NR);
                    }
                });
                a_part!(1, $g, 0, st, ash, src, NR, SQR);
                step!(1, $g, $m, |y| { n_part!(0, 3, 0, st, y, $m, NR) });
                a_part!(2, $g, 0, st, ash, src, NR, SQR);
                step!(2, $g, $m, |y| { n_part!(1, 3, 0, st, y, $m, NR) });
                a_part!(3, $g, 0, st, ash, src, NR, SQR);
                step!(3, $g, $m, |y| { n_part!(2, 3, 0, st, y, $m, NR) });
                if $g + 1 < NR {
                    a_part!(0, $g + 1, 1, st, ash, src, NR, SQR);
                }
            }};
        }
        // Slot 0 (positions 4g..4g+3) is finished: only its carry, already in
        // the quotient chain, matters. Slide the window.
        macro_rules! slide {
            () => {{
                for_r!(NR - 1, |r| {
                    st.wa[r] = st.wa[r + 1];
                    st.wn[r] = st.wn[r + 1];
                });
                // Slot NR + 1 holds the next group's first A part (issued above).
                st.wa[NR] = st.wa[NR + 1];
                st.wn[NR] = st.wn[NR + 1];
                st.wa[NR + 1] = zero;
                st.wn[NR + 1] = st.bias;
            }};
        }
        // Hide the loop invariance of the modulus rows from the optimiser: hoisted
        // out of the loop they spill, i.e. get copied to the stack on every call.
        let rows = |g: usize| if NR <= OPAQUE_MAX_NR { opaque(m, g) } else { m };
        if WRITTEN_OUT && NR <= STRAIGHT_MAX_NR {
            // The groups written out, g a constant in each (see `STRAIGHT_MAX_NR`).
            macro_rules! straight {
            ($($g:literal)*) => {{
                $(
                    if $g < NR {
                        let m = rows($g);
                        group!($g, m);
                        slide!();
                    }
                )*
            }};
        }
            straight!(0 1 2 3 4 5 6 7 8 9);
        } else {
            for g in 0..NR {
                let m = rows(g);
                if SQR && WRITTEN_OUT {
                    // A copy per group, g a constant in each (as above), within
                    // the loop. (Not in the unit-test and fuzz builds: see `WRITTEN_OUT`.)
                    match g {
                        0 => group!(0, m),
                        1 => group!(1, m),
                        2 => group!(2, m),
                        3 => group!(3, m),
                        4 => group!(4, m),
                        5 => group!(5, m),
                        6 => group!(6, m),
                        7 => group!(7, m),
                        8 => group!(8, m),
                        _ => group!(9, m),
                    }
                } else {
                    group!(g, m);
                }
                slide!();
            }
        }
        if SQR {
            // The last step's N part (the window has slid past its group).
            let m_last = rows(NR - 1);
            n_part!(3, 3, -1, st, st.y_prev, m_last, NR);
        }
        // Positions d..2d-1, plus the carry out of position d - 1.
        let mut res = [zero; NR];
        for r in 0..NR {
            let wa = if SQR {
                _mm512_add_epi64(st.wa[r], st.wa[r])
            } else {
                st.wa[r]
            };
            res[r] = _mm512_sub_epi64(_mm512_add_epi64(wa, st.wn[r]), st.bias);
        }
        let c = if XMM { _mm512_zextsi128_si512(st.cx) } else { st.c };
        res[0] = _mm512_mask_add_epi64(res[0], 0b11, res[0], c);
        // The shifted copies of `a` stay on the stack (volatile zeroing of 2-4 KiB per
        // product would cost more than the product); later products overwrite them.
        normalize(out, &res);
    }
}
