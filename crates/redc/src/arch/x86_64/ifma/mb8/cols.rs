//! The eight-lane column-block kernels, above [`REG_MAX_D`](super::REG_MAX_D) digits:
//! product scanning in blocks of K columns held in registers
//! ([`amm_cols`]) and the dedicated squaring in the same blocks
//! ([`sqr_cols`]), Koc, Acar and Kaliski, "Analyzing and Comparing
//! Montgomery Multiplication Algorithms" (FIPS order; SOS squaring).
//! Bounds: a column stays below 2^60 for D <= 40 (see each kernel); the
//! result is the register kernels' bit for bit (the same quotient digits).

use core::arch::x86_64::*;

use crate::arch::portable52::MASK;

use super::{K, MAX_D, Mb8, Mb8Mod, Scratch};

/// `for t in 0..K` (K <= 16) unrolled in the source, `t` a constant.
macro_rules! for_k {
    (|$t:ident| $body:block) => {{
        for_k!(@one $t, 0, $body); for_k!(@one $t, 1, $body); for_k!(@one $t, 2, $body);
        for_k!(@one $t, 3, $body); for_k!(@one $t, 4, $body); for_k!(@one $t, 5, $body);
        for_k!(@one $t, 6, $body); for_k!(@one $t, 7, $body); for_k!(@one $t, 8, $body);
        for_k!(@one $t, 9, $body); for_k!(@one $t, 10, $body); for_k!(@one $t, 11, $body);
        for_k!(@one $t, 12, $body); for_k!(@one $t, 13, $body); for_k!(@one $t, 14, $body);
        for_k!(@one $t, 15, $body);
    }};
    (@one $t:ident, $v:literal, $body:block) => {{
        #[allow(non_upper_case_globals)]
        const $t: usize = $v;
        if $t < K $body
    }};
}
const _: () = assert!(K <= 16, "for_k! unrolls up to 16 columns");

/// For the block of columns c0..c0 + K in `acc` and `hi`: hi[t] += hi(x r_t),
/// acc[t] += lo(x r_(t+1)) with r_t = row K + c0 - 1 - j + t of the padded rows `r`:
/// every x r_k whose lo or hi half lands in the block (x is operand digit j,
/// r the other operand's rows). Only j with some row k in 0..D contribute;
/// the others read pads. Needs j <= c0 + K - 1 (row indices >= 0).
macro_rules! block_rows {
    ($acc:ident, $hi:ident, $r:expr, $c0:expr, $x:expr, $j:expr) => {{
        let j: usize = $j;
        let xj = $x;
        let base = K + $c0 - 1 - j;
        let mut prev = $r[base];
        for t in 0..K {
            let next = $r[base + t + 1];
            $hi[t] = _mm512_madd52hi_epu64($hi[t], xj, prev);
            $acc[t] = _mm512_madd52lo_epu64($acc[t], xj, next);
            prev = next;
        }
    }};
}

/// [`block_rows!`] for the rows at a block's edges, where part of the K
/// columns would read pad rows (zero products, which cost the ports as much
/// as the others): only the products that land on a digit are issued, their
/// columns constants once unrolled. Bottom edge: the rows j = c0 + F - D
/// (F < K, j < `$end`), whose digits k = c0 - 1 - j + t (hi) and k + 1 (lo)
/// reach D for t > F (hi) and t >= F (lo). Top edge (`top`): the rows
/// j = c0 + E (E < K, j < D), whose digits fall below 0 for t <= E (hi)
/// and t < E (lo).
macro_rules! edge_rows {
    (bottom, $acc:ident, $hi:ident, $r:expr, $c0:expr, $d:expr, $end:expr, |$j:ident| $x:expr) => {{
        for_k!(|F| {
            if $c0 + F >= $d && $c0 + F - $d < $end {
                let $j: usize = $c0 + F - $d;
                let xj = $x;
                let base = K + $c0 - 1 - $j;
                for_k!(|T| {
                    if T <= F {
                        $hi[T] = _mm512_madd52hi_epu64($hi[T], xj, $r[base + T]);
                    }
                    if T < F {
                        $acc[T] = _mm512_madd52lo_epu64($acc[T], xj, $r[base + T + 1]);
                    }
                });
            }
        });
    }};
    (top, $acc:ident, $hi:ident, $r:expr, $c0:expr, $d:expr, |$j:ident| $x:expr) => {{
        for_k!(|E| {
            if $c0 + E < $d {
                let $j: usize = $c0 + E;
                let xj = $x;
                let base = K + $c0 - 1 - $j;
                for_k!(|T| {
                    if T > E {
                        $hi[T] = _mm512_madd52hi_epu64($hi[T], xj, $r[base + T]);
                    }
                    if T >= E {
                        $acc[T] = _mm512_madd52lo_epu64($acc[T], xj, $r[base + T + 1]);
                    }
                });
            }
        });
    }};
}

/// `out = amm(a, b)` in every lane by product scanning in blocks of K
/// columns (seed 001's FIPS order): a block's K column sums stay in
/// registers while every product that reaches them is added, a × b first,
/// then the quotient digits of earlier blocks × n, then, column by column,
/// the block's own quotient digits (each needs its column complete) × n into
/// the block's later columns. Per product pair one row load and two IFMAs;
/// no accumulator goes through memory (the row kernel stores every position
/// at every step). Columns from D on are carried out as the result digits.
/// Same quotient digits, so the same output bit for bit, as [`amm_reg`](super::amm_reg).
///
/// K = 8: wider blocks issue more products of pad rows at their edges
/// (docs/PERFORMANCE.md, "Eight-lane column blocks: K = 8").
///
/// A block's edge rows (the first K and last K rows of a that reach it, and
/// the first K quotient rows) reach only some of its columns; they issue
/// only the products that land on a digit (`edge_rows!`), where reading
/// the zero pads cost about 14% more IFMAs at 40 digits (docs/PERFORMANCE.md,
/// "Eight-lane column blocks: edge rows").
///
/// Each column has two accumulators, one for the hi halves and one for the
/// lo halves, added together before the column is read (and, squaring,
/// before the doubling): 2K chains of one IFMA per row instead of K chains
/// of two. With K chains of two, Little's law allows K / L IFMAs a cycle
/// for an IFMA latency of L cycles; at Intel's latency that is exactly its
/// port limit, so any hiccup stalled the block (docs/PERFORMANCE.md,
/// "Eight-lane column blocks: two accumulators per column").
///
/// A block's own quotient digits form a chain: y_T needs column T in full,
/// which needs y_(T-1)'s products. Between two y's lie one IFMA (y), one
/// IFMA pair side by side (hi(y n_0) with the carry as addend, lo(y n_1)
/// onto the column) and one add, about 10 cycles; the products of y into
/// the later columns follow in program order, so that they do not take the
/// chain's ports first. Before, the column took both halves in one
/// register (two chained IFMAs, about 14 cycles a column). What that
/// gained, and how little is left to win by cutting the chain further:
/// docs/PERFORMANCE.md, "Eight-lane column blocks: the block's quotient
/// chain".
///
/// Lane bound: a column receives at most 4 D halves (< 2^52 each) plus one
/// carry below 2^9: below 2^60 for D <= 40.
///
/// # Safety
/// Call only where AVX-512F and AVX-512IFMA are available.
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn amm_cols<const D: usize>(
    out: &mut Mb8<D>,
    a: &Mb8<D>,
    b: &Mb8<D>,
    m: &Mb8Mod<D>,
    scratch: &mut Scratch,
) {
    cols::<D, false>(out, a, b, m, scratch)
}

/// `out = amm(a, a)` in every lane above [`REG_MAX_D`](super::REG_MAX_D) digits: the column
/// blocks of [`amm_cols`] with each block's a a part as a square (seed 001,
/// dedicated squaring in FIPS order): every cross product a_i a_j (i < j)
/// that lands in the block once, the block's sums doubled, then the
/// diagonal's halves lo(a_(c/2)^2) (c even) and hi(a_((c-1)/2)^2) (c odd)
/// once, then the same reduction. A block starting at column c0 (even, as
/// K is) takes rows i < c0/2 whole (every digit they read has j > i), rows
/// c0/2 + S (S < K/2) only where j > i (column c0 + T: the lo half for
/// T > 2S, the hi half for T > 2S + 1; constants once unrolled), and no
/// row above. About D^2 + D products of a by a against 2 D^2, and the same
/// quotient digits, so the same result bit for bit as the product.
///
/// Lane bound: a column's cross halves number at most D (lo from pairs
/// summing to c, hi from pairs summing to c - 1), doubled below
/// 2 D 2^52, plus one diagonal half, 2 D reduction halves and a carry
/// below 2^9: below (4 D + 1) 2^52 + 2^9 < 2^60 for D <= 40.
///
/// # Safety
/// Call only where AVX-512F and AVX-512IFMA are available.
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn sqr_cols<const D: usize>(out: &mut Mb8<D>, a: &Mb8<D>, m: &Mb8Mod<D>, scratch: &mut Scratch) {
    cols::<D, true>(out, a, a, m, scratch)
}

/// [`amm_cols`] (`SQR` false) and [`sqr_cols`] (`SQR` true, `b` = `a`): the
/// column blocks, which differ only in how a block's a b part is summed.
// The unrolled S, T and U compare against constants (0 included).
#[allow(clippy::absurd_extreme_comparisons)]
#[target_feature(enable = "avx512f,avx512ifma")]
fn cols<const D: usize, const SQR: bool>(
    out: &mut Mb8<D>,
    a: &Mb8<D>,
    b: &Mb8<D>,
    m: &Mb8Mod<D>,
    scratch: &mut Scratch,
) {
    const { assert!(K.is_multiple_of(2), "blocks start at even columns") };
    assert!((K..=MAX_D).contains(&D));
    let zero = _mm512_setzero_si512();
    let mask = _mm512_set1_epi64(MASK as i64);
    // SAFETY: `k0` is 8 u64s; the load is unaligned-tolerant.
    let k0 = unsafe { _mm512_loadu_si512(m.k0.as_ptr().cast()) };
    let rows = &mut scratch.cols;
    for k in 0..D {
        rows.b[K + k] = ld!(&b.0[k]);
        rows.n[K + k] = ld!(&m.n.0[k]);
    }
    let mut carry = zero;
    // Column c0 + t of the block in acc[t]; blocks cover columns 0..2D.
    for c0 in (0..2 * D).step_by(K) {
        // 16 slots (for_k!'s reach; `acc` one more, for the next column's
        // index T + 1) so that every unrolled index is in bounds; only the
        // first K are used.
        let mut acc = [zero; 17];
        let mut hi = [zero; 16];
        // Rows of a whose products reach the block: j in c0 - D..c0 + K, of
        // which the middle ones reach all K columns.
        let full = (c0 + K).saturating_sub(D);
        if !SQR {
            edge_rows!(bottom, acc, hi, rows.b, c0, D, D, |j| ld!(&a.0[j]));
            for j in full..c0.min(D) {
                block_rows!(acc, hi, rows.b, c0, ld!(&a.0[j]), j);
            }
            edge_rows!(top, acc, hi, rows.b, c0, D, |j| ld!(&a.0[j]));
        } else {
            let half = c0 / 2;
            // Rows whose every digit read lies above the diagonal.
            edge_rows!(bottom, acc, hi, rows.b, c0, D, half, |i| ld!(&a.0[i]));
            for i in full..half {
                block_rows!(acc, hi, rows.b, c0, ld!(&a.0[i]), i);
            }
            // The rows the diagonal crosses: the pairs with j > i only.
            for_k!(|S| {
                let i = half + S;
                if 2 * S < K && i < D {
                    let ai = ld!(&a.0[i]);
                    for_k!(|T| {
                        if T > 2 * S {
                            acc[T] = _mm512_madd52lo_epu64(acc[T], ai, rows.b[K + half + T - S]);
                        }
                        if T > 2 * S + 1 {
                            acc[T] = _mm512_madd52hi_epu64(acc[T], ai, rows.b[K + half + T - S - 1]);
                        }
                    });
                }
            });
            // Doubled (in 64-bit lanes), then the diagonal digit's halves:
            // column c0 + T's is digit half + T / 2 (pads beyond D read zero).
            for_k!(|T| {
                let h = rows.b[K + half + T / 2];
                acc[T] = _mm512_add_epi64(acc[T], hi[T]);
                hi[T] = zero;
                acc[T] = _mm512_add_epi64(acc[T], acc[T]);
                acc[T] = if T.is_multiple_of(2) {
                    _mm512_madd52lo_epu64(acc[T], h, h)
                } else {
                    _mm512_madd52hi_epu64(acc[T], h, h)
                };
            });
        }
        // Quotient digits of earlier blocks.
        edge_rows!(bottom, acc, hi, rows.n, c0, D, c0.min(D), |l| rows.y[K + l]);
        for l in full..c0.min(D) {
            block_rows!(acc, hi, rows.n, c0, rows.y[K + l], l);
        }
        for_k!(|T| {
            acc[T] = _mm512_add_epi64(acc[T], hi[T]);
        });
        // The block's own columns, in order (unrolled: every accumulator
        // index a constant, so the block stays in registers). `v` is column
        // c0 + T in full (carry in included) when column T is reached.
        let mut v = _mm512_add_epi64(acc[0], carry);
        for_k!(|T| {
            let c = c0 + T;
            if c < D {
                // y = lo(v k0); position c + lo(n_0 y) = 0 mod 2^52, carry out
                // (v + 2^52 - 1) >> 52 (see the module documentation).
                let y = _mm512_madd52lo_epu64(zero, v, k0);
                let cy = _mm512_srli_epi64::<52>(_mm512_add_epi64(v, mask));
                rows.y[K + c] = y;
                // The next column, the chain from y to y: its two halves of
                // y's products side by side, the carry as an addend, so one
                // IFMA and one add (not two chained IFMAs and an add) lie
                // between y and the next column's value. Issued before the
                // later columns' products, so that they do not take its ports first.
                if T + 1 < K {
                    v = _mm512_add_epi64(
                        _mm512_madd52hi_epu64(cy, y, rows.n[K]),
                        _mm512_madd52lo_epu64(acc[T + 1], y, rows.n[K + 1]),
                    );
                } else {
                    carry = cy;
                }
                for_k!(|U| {
                    if U > T + 1 {
                        acc[U] = _mm512_madd52hi_epu64(acc[U], y, rows.n[K + U - T - 1]);
                        acc[U] = _mm512_madd52lo_epu64(acc[U], y, rows.n[K + U - T]);
                    }
                });
            } else if c < 2 * D {
                carry = _mm512_srli_epi64::<52>(v);
                // SAFETY: the row is 64 bytes inside a 64-byte aligned `Mb8`.
                unsafe { _mm512_store_si512(out.0[c - D].as_mut_ptr().cast(), _mm512_and_si512(v, mask)) };
                if T + 1 < K {
                    v = _mm512_add_epi64(acc[T + 1], carry);
                }
            }
        });
    }
}
