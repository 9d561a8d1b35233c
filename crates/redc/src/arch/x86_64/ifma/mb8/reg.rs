//! The eight-lane register-window kernels, up to [`REG_MAX_D`] digits:
//! the product ([`amm_reg`], operand scanning with positions i..i+D in
//! registers) and the dedicated squaring ([`sqr`]: the square by product
//! scanning, then the reduction with the register window), Koc, Acar and
//! Kaliski, "Analyzing and Comparing Montgomery Multiplication Algorithms"
//! (operand scanning; SOS). Lanes stay below 2^60 for D <= 40 (see each
//! kernel); inputs and outputs below 2m per lane.

use core::arch::x86_64::*;

use crate::arch::portable52::MASK;
use crate::arch::x86_64::ifma::opaque;

use super::{MAX_D, Mb8, Mb8Mod, REG_MAX_D, Scratch};

/// `for j in 0..d` (j up to `MAX_D`), unrolled in the source so that every
/// accumulator index is a constant and LLVM keeps the window in registers.
macro_rules! for_d {
    ($d:expr, |$j:ident| $body:block) => {
        for_d!(@list $d, $j, $body, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20
            21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39])
    };
    (@list $d:expr, $j:ident, $body:block, [$($v:literal)*]) => {{
        $({
            #[allow(non_upper_case_globals)]
            const $j: usize = $v;
            if $j < $d $body
        })*
    }};
}

/// [`for_d!`] for the register kernels, j up to `REG_MAX_D` only: their
/// steps nest two of these, and 21 x 21 arms instead of 40 x 40 keep the
/// source the compiler has to fold small (the build with fuzzing
/// instrumentation took minutes longer with the longer list).
macro_rules! for_reg {
    ($d:expr, |$j:ident| $body:block) => {
        for_d!(@list $d, $j, $body, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20])
    };
}
const _: () = assert!(REG_MAX_D < 21, "for_reg! covers j up to 20");

/// [`amm`](super::amm) with the position window in registers: the steps of the module
/// documentation (operand scanning), position i + j of step i in
/// accumulator i + j. Both loops are unrolled, every accumulator index is
/// a constant, so the window slides by register renaming and no position
/// row is stored or reloaded. The carry of position i joins position i + 1.
///
/// The rows of a and n are read from memory at every step (`opaque`):
/// kept in registers across the unrolled steps they spill. With a loop
/// over i the window slid by one register move per position per step (20
/// moves beside 80 IFMAs at 20 digits; on Intel zmm moves run on the IFMA
/// ports) and LLVM spilled the rows (docs/PERFORMANCE.md, "Eight-lane
/// kernel: the register window written out").
///
/// Per step the chain from one quotient digit to the next is
/// lo(a_0 b_i) -> y_i -> lo(n_1 y_i) -> the shift's add: the products of the
/// step that do not feed position i + 1 overlap it.
///
/// The result is [`amm_cols`](super::amm_cols)' bit for bit (the same quotient digits, the
/// same sums). Above [`REG_MAX_D`] digits the window no longer fits the 32
/// registers and LLVM spills it (`amm_any` dispatches).
///
/// # Safety
/// Call only where AVX-512F and AVX-512IFMA are available.
// The unrolled J compares against constants (J = 0 included).
#[allow(clippy::absurd_extreme_comparisons)]
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn amm_reg<const D: usize>(out: &mut Mb8<D>, a: &Mb8<D>, b: &Mb8<D>, m: &Mb8Mod<D>) {
    assert!((2..=MAX_D).contains(&D));
    let zero = _mm512_setzero_si512();
    let mask = _mm512_set1_epi64(MASK as i64);
    // SAFETY: `k0` is 8 u64s; the load is unaligned-tolerant.
    let k0 = unsafe { _mm512_loadu_si512(m.k0.as_ptr().cast()) };
    let (a0, a1) = (ld!(&a.0[0]), ld!(&a.0[1]));
    let (n0, n1) = (ld!(&m.n.0[0]), ld!(&m.n.0[1]));
    let mut acc = [zero; 2 * MAX_D + 2];
    for_reg!(D, |I| {
        let bi = ld!(&b.0[I]);
        let x = _mm512_madd52lo_epu64(acc[I], a0, bi);
        // Position i + 1's terms that do not wait for the quotient digit.
        let mut p1 = _mm512_madd52hi_epu64(acc[I + 1], a0, bi);
        p1 = _mm512_madd52lo_epu64(p1, a1, bi);
        let y = _mm512_madd52lo_epu64(zero, x, k0);
        let c = _mm512_srli_epi64::<52>(_mm512_add_epi64(x, mask));
        let q1 = _mm512_madd52lo_epu64(c, n1, y);
        p1 = _mm512_madd52hi_epu64(p1, n0, y);
        acc[I + 1] = _mm512_add_epi64(p1, q1);
        // Positions i + 2 ..= i + D, the rows read from memory at every step.
        let (arows, nrows) = (opaque(a, I), opaque(&m.n, I));
        for_reg!(D, |J| {
            if J >= 1 {
                let (aj, nj) = (ld!(&arows.0[J]), ld!(&nrows.0[J]));
                let mut hi = _mm512_madd52hi_epu64(acc[I + J + 1], aj, bi);
                hi = _mm512_madd52hi_epu64(hi, nj, y);
                acc[I + J + 1] = hi;
                if J >= 2 {
                    let mut lo = _mm512_madd52lo_epu64(acc[I + J], aj, bi);
                    lo = _mm512_madd52lo_epu64(lo, nj, y);
                    acc[I + J] = lo;
                }
            }
        });
    });
    // Positions D..2D-1, carried digit by digit.
    let mut c = zero;
    for_reg!(D, |J| {
        let v = _mm512_add_epi64(acc[D + J], c);
        c = _mm512_srli_epi64::<52>(v);
        // SAFETY: the row is 64 bytes inside a 64-byte aligned `Mb8`.
        unsafe { _mm512_store_si512(out.0[J].as_mut_ptr().cast(), _mm512_and_si512(v, mask)) };
    });
    // The carry out of the top digit is zero: the value is below 2m < R.
    let _ = c;
}

/// `out = amm(a, a)` in every lane with dedicated squaring: the square
/// first, then its Montgomery reduction (seed 001, SOS: separated operand
/// scanning).
///
/// Square: column k (product scanning) sums lo(a_i a_j) over the pairs
/// i < j, i + j = k and hi(a_i a_j) over those with i + j = k - 1, in
/// registers; the column's sum is doubled, and the diagonal's halves
/// lo(a_{k/2}^2) and hi(a_{(k-1)/2}^2) added once: D (D + 1) products of
/// a a where a product has 2 D^2 (D = 20: 420 IFMAs against 800). Rows
/// 0..2D of the scratch get the square's positions (not carried).
///
/// Reduction: as [`amm_reg`] with the a b terms replaced by
/// the square's positions, which enter the window as it slides: the same
/// quotient digits as the product, so the same result bit for bit. Unrolled
/// as [`amm_reg`] (no window moves, the rows read at every step): best ns
/// per eight squarings at 20 digits 263 against 291 with a loop over i
/// (same CPU and runs as there).
///
/// Lane bound: a column's doubled cross sum is below 2 (D + 1) 2^52, plus
/// the diagonal (2^53) and then 2 D reduction halves and a carry: below
/// 4 (D + 2) 2^52 < 2^60 for D <= 40.
///
/// # Safety
/// Call only where AVX-512F and AVX-512IFMA are available.
// The unrolled J compares against constants (J = 0 included); the last
// column's end leaves values nobody reads.
#[allow(clippy::absurd_extreme_comparisons, unused_assignments)]
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn sqr<const D: usize>(out: &mut Mb8<D>, a: &Mb8<D>, m: &Mb8Mod<D>, scratch: &mut Scratch) {
    assert!((2..=REG_MAX_D).contains(&D));
    let zero = _mm512_setzero_si512();
    let mask = _mm512_set1_epi64(MASK as i64);
    // SAFETY: `k0` is 8 u64s; the load is unaligned-tolerant.
    let k0 = unsafe { _mm512_loadu_si512(m.k0.as_ptr().cast()) };
    let sq = &mut scratch.t;
    // The square, column by column.
    // Two accumulator pairs: a column's pairs alternate between them (up
    // to five IFMAs chained per register at 20 digits, columns overlapping
    // in flight), and its end costs two adds: on Intel zmm adds share the
    // IFMA ports, and four pairs (three adds more per column) measured
    // slower (docs/PERFORMANCE.md, "Eight-lane squaring: two accumulator
    // pairs").
    let (mut lo, mut hi) = ([zero; 2], [zero; 2]);
    // Column k's end: its doubled cross sum plus the diagonal's half, added
    // by the diagonal IFMA itself: lo(a_(k/2)^2) for even k, hi(a_((k-1)/2)^2)
    // for odd k.
    macro_rules! column_end {
        ($k:expr) => {{
            let k = $k;
            let c = _mm512_add_epi64(lo[0], lo[1]);
            let v = _mm512_add_epi64(c, c);
            let h = ld!(&a.0[k / 2]);
            sq[k] = if k % 2 == 0 {
                _mm512_madd52lo_epu64(v, h, h)
            } else {
                _mm512_madd52hi_epu64(v, h, h)
            };
            lo = hi;
            hi = [zero; 2];
        }};
    }
    // Unrolled in the source (every column's pairs constant: no loop of
    // varying length per column, whose exits the branch predictor misses).
    // 2D <= 40 columns, which `for_d!` covers.
    for_d!(2 * D, |K| {
        for_reg!(D, |I| {
            if 2 * I < K && K < D + I {
                let (x, y) = (ld!(&a.0[I]), ld!(&a.0[K - I]));
                lo[I % 2] = _mm512_madd52lo_epu64(lo[I % 2], x, y);
                hi[I % 2] = _mm512_madd52hi_epu64(hi[I % 2], x, y);
            }
        });
        column_end!(K);
    });
    sq[2 * D] = zero;
    // The reduction, with the window in registers: position i + j of step
    // i lives in acc[i + j], every index a constant once unrolled, so the
    // window slides by register renaming, not by moves. The square's rows
    // and n's are read from memory where they are used (`opaque`): held in
    // registers across the steps they spill.
    let n0 = ld!(&m.n.0[0]);
    let n1 = ld!(&m.n.0[1]);
    let mut acc = [zero; 2 * MAX_D + 2];
    {
        let sqr_rows = opaque(&*sq, 0);
        for_reg!(D + 1, |J| {
            acc[J] = sqr_rows[J];
        });
    }
    for_reg!(D, |I| {
        let x = acc[I];
        let y = _mm512_madd52lo_epu64(zero, x, k0);
        let c = _mm512_srli_epi64::<52>(_mm512_add_epi64(x, mask));
        let q1 = _mm512_madd52lo_epu64(c, n1, y);
        let p1 = _mm512_madd52hi_epu64(acc[I + 1], n0, y);
        acc[I + 1] = _mm512_add_epi64(p1, q1);
        let nrows = opaque(&m.n, I);
        for_reg!(D, |J| {
            if J >= 1 {
                let nj = ld!(&nrows.0[J]);
                acc[I + J + 1] = _mm512_madd52hi_epu64(acc[I + J + 1], nj, y);
                if J >= 2 {
                    acc[I + J] = _mm512_madd52lo_epu64(acc[I + J], nj, y);
                }
            }
        });
        // Position i + D + 1 of the square enters (row 2D is zero).
        let sqr_rows = opaque(&*sq, I + 1);
        acc[I + D + 1] = sqr_rows[I + D + 1];
    });
    let mut c = zero;
    for_reg!(D, |J| {
        let v = _mm512_add_epi64(acc[D + J], c);
        c = _mm512_srli_epi64::<52>(v);
        // SAFETY: the row is 64 bytes inside a 64-byte aligned `Mb8`.
        unsafe { _mm512_store_si512(out.0[J].as_mut_ptr().cast(), _mm512_and_si512(v, mask)) };
    });
    // The carry out of the top digit is zero: the value is below 2m < R.
    let _ = c;
}
