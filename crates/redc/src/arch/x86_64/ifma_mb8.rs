//! Eight independent radix-2^52 almost-Montgomery products at once, one per
//! 64-bit lane of a 512-bit register ("multi-buffer", vertical layout), and
//! the constant-time fixed-window exponentiation on them: the kernel of
//! batch signing, where eight private operations (CRT halves of one or of
//! several keys, moduli of one digit count) share every instruction.
//!
//! Papers: Zhao, Wang, Lu and Dai, "Hierarchical Optimizations for High
//! Speed Implementation of Modular Exponentiation in ASIC" (002), Algorithm 1
//! (high-radix Montgomery, inputs below 2M, no final subtraction); Shand and
//! Vuillemin, "Fast Implementations of RSA Cryptography" (003), section 4.2
//! (the window method) and section 5 (Montgomery = Hensel's odd division,
//! the 2M bound).
//!
//! # Layout
//!
//! `Mb8<D>.0[j][l]` is digit j of lane l's operand: register j holds digit j
//! of all eight operations. No instruction moves data between lanes, so the
//! lanes are eight independent computations with no dependency chain across
//! them: the multiplier, not the latency of one product, bounds the kernel.
//!
//! # Product (operand scanning, one fused pass per step)
//!
//! T holds positions 0..2D of a b + Y m in 64-bit lanes, never carried during
//! the product. At step i the quotient digit needs position i in full:
//!
//! ```text
//! x_i = T[i] + lo(a_0 b_i) + c_{i-1}      (T[i]: contributions of steps < i)
//! y_i = lo(x_i k0)                         k0 = -m^-1 mod 2^52, per lane
//! c_i = (x_i + 2^52 - 1) >> 52             carry of position i after + lo(n_0 y_i)
//! ```
//!
//! (x = H 2^52 + L and L + lo(n_0 y) is 0 or 2^52, the latter exactly when
//! L != 0.) Then one pass over j adds lo(a_j b_i) + hi(a_{j-1} b_i) +
//! lo(n_j y_i) + hi(n_{j-1} y_i) to T[i + j] (j = 1..=D; position i itself is
//! done: its value is x_i + lo(n_0 y_i) = c_i 2^52). At the end the carry
//! c_{D-1} joins T\[D\] and positions D..2D-1 are carried digit by digit.
//!
//! Lane bound: a position receives four halves (< 2^52 each) per step for at
//! most D + 1 steps: below 4 (D + 1) 2^52 <= 164 * 2^52 < 2^60 for D <= 40,
//! plus a carry below 2^8. No lane overflows.
//!
//! Almost-Montgomery: (a b + Y m) / R < 2m for a, b < 2m and 4m < R
//! (proof in `arch::portable52`), per lane; outputs are valid inputs.
//!
//! # Three kernels, one result
//!
//! - [`amm_cols`]: product scanning (seed 001's FIPS order) in blocks of K
//!   columns held in registers (D >= K; used above 20 digits).
//! - [`amm_reg`]: the same steps with positions i..i+D in registers, the
//!   window shifted by renaming (D <= [`REG_MAX_D`] = 20, where D + 1
//!   accumulators and a dozen other values fit the 32 registers).
//! - [`sqr`]: dedicated squaring (D <= 20): the square by product scanning
//!   (each cross pair once, doubled per column; seed 001, SOS), then the
//!   reduction with the register window. D (D + 1) products of a a where a
//!   product has 2 D^2.
//! - [`sqr_cols`]: dedicated squaring above 20 digits, in [`amm_cols`]'
//!   column blocks (each block's cross pairs once, doubled, the diagonal,
//!   then the same reduction).
//!
//! All four compute the same quotient digits, so the same output bit for
//! bit (tested against the portable twin, `portable52::amm_mul`).
//!
//! # Constant time
//!
//! Every lane runs the same instructions; nothing branches on or indexes by
//! any lane's data. The window of each lane's exponent selects its table
//! entry through masked moves over all 16 entries (`gather`). The
//! exponents' LENGTH (one for all lanes) is public, their bits are secret.

// Register arrays indexed by constant-bound counters.
#![allow(clippy::needless_range_loop)]

use core::arch::x86_64::*;

use zeroize::Zeroize;

use crate::arch::portable52::{self, MASK, Modulus52};

/// Lanes per register: eight operations.
pub const LANES: usize = 8;

/// The largest digit count (2078-bit moduli, the CRT halves of RSA-4096).
pub const MAX_D: usize = 40;

/// Columns per block of [`amm_cols`]: K accumulators stay in registers.
const K: usize = 8;

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

/// Eight operands of D digits: `.0[j][l]` = digit j of lane l.
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug)]
pub struct Mb8<const D: usize>(pub [[u64; 8]; D]);

impl<const D: usize> Mb8<D> {
    /// All zero.
    pub const ZERO: Self = Mb8([[0; 8]; D]);

    /// Lane l gets `lanes[l]` (at most D digits each; missing lanes are zero).
    pub fn from_lanes(lanes: &[&[u64]]) -> Self {
        assert!(lanes.len() <= LANES);
        let mut out = Self::ZERO;
        for (l, x) in lanes.iter().enumerate() {
            assert!(x.len() <= D);
            for (j, &v) in x.iter().enumerate() {
                out.0[j][l] = v;
            }
        }
        out
    }

    /// Lane l's D digits.
    pub fn lane(&self, l: usize) -> Vec<u64> {
        (0..D).map(|j| self.0[j][l]).collect()
    }
}

impl<const D: usize> Zeroize for Mb8<D> {
    fn zeroize(&mut self) {
        for r in self.0.iter_mut() {
            r.zeroize();
        }
    }
}

/// Eight moduli of D digits (any mix: secret CRT primes of several keys),
/// their k0 and R^2 per lane. Wiped on drop.
pub struct Mb8Mod<const D: usize> {
    n: Mb8<D>,
    k0: [u64; 8],
    rr: Mb8<D>,
}

impl<const D: usize> Mb8Mod<D> {
    /// From eight prepared moduli, each of exactly D digits.
    pub fn new(moduli: [&Modulus52; LANES]) -> Self {
        assert!(D <= MAX_D && moduli.iter().all(|m| m.d == D));
        let n: Vec<&[u64]> = moduli.iter().map(|m| &m.m[..]).collect();
        let rr: Vec<&[u64]> = moduli.iter().map(|m| &m.rr[..]).collect();
        Mb8Mod {
            n: Mb8::from_lanes(&n),
            k0: moduli.map(|m| m.k0),
            rr: Mb8::from_lanes(&rr),
        }
    }
}

impl<const D: usize> Drop for Mb8Mod<D> {
    fn drop(&mut self) {
        self.n.zeroize();
        self.k0.zeroize();
        self.rr.zeroize();
    }
}

/// `out = amm(a, b)` in every lane: digits below 2^52, values below 2m.
///
/// # Safety
/// Call only where AVX-512F and AVX-512IFMA are available.
#[target_feature(enable = "avx512f,avx512ifma")]
pub fn amm<const D: usize>(out: &mut Mb8<D>, a: &Mb8<D>, b: &Mb8<D>, m: &Mb8Mod<D>) {
    let mut t = Scratch::new();
    amm_any(out, a, b, m, &mut t);
}

/// The largest digit count whose D + 1 accumulators [`amm_reg`] keeps in
/// registers (with its dozen other live registers, of 32).
pub const REG_MAX_D: usize = 20;

/// [`amm_reg`] up to [`REG_MAX_D`] digits, [`amm_cols`] above (where the
/// register window would spill). Measured on the Intel Xeon (family 6 model
/// 207), `kernel_bench mb8`: at 20 digits 421 ns per eight products against
/// 454 for the earlier row kernel (positions as rows in memory, stored at
/// every step); at 32 and 40 digits the spilling register window took 1918
/// and 3646 ns against the row kernel's 1304 and 1989, and the column blocks
/// 1416-1430 and 2035-2098 against the row kernel's 1521-1606 and 2266-2330
/// in one loaded run (about 8% less).
#[inline(always)]
fn amm_any<const D: usize>(out: &mut Mb8<D>, a: &Mb8<D>, b: &Mb8<D>, m: &Mb8Mod<D>, scratch: &mut Scratch) {
    if D <= REG_MAX_D {
        // SAFETY: the caller has AVX-512F and AVX-512IFMA (`amm`'s and
        // `pow`'s contract).
        unsafe { amm_reg(out, a, b, m) }
    } else {
        // SAFETY: as above.
        unsafe { amm_cols(out, a, b, m, scratch) }
    }
}

/// [`amm`] with the caller's scratch rows (no zeroing per product), for
/// chains of products outside [`pow`].
///
/// # Safety
/// Call only where AVX-512F and AVX-512IFMA are available.
#[target_feature(enable = "avx512f,avx512ifma")]
pub fn amm_scratch<const D: usize>(
    out: &mut Mb8<D>,
    a: &Mb8<D>,
    b: &Mb8<D>,
    m: &Mb8Mod<D>,
    scratch: &mut Scratch,
) {
    amm_any(out, a, b, m, scratch);
}

impl<const D: usize> Mb8Mod<D> {
    /// R^2 mod m per lane, in digits (the factor that takes a value into the
    /// Montgomery domain: `amm(x, rr) = x R`).
    pub fn rr(&self) -> &Mb8<D> {
        &self.rr
    }
}

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

/// `out = amm(a, a)`: [`sqr`] up to [`REG_MAX_D`] digits, [`sqr_cols`]
/// above (the same split as `amm_any`).
///
/// # Safety
/// Call only where AVX-512F and AVX-512IFMA are available.
#[target_feature(enable = "avx512f,avx512ifma")]
pub fn sqr_any<const D: usize>(out: &mut Mb8<D>, a: &Mb8<D>, m: &Mb8Mod<D>, scratch: &mut Scratch) {
    if D <= REG_MAX_D {
        sqr(out, a, m, scratch)
    } else {
        sqr_cols(out, a, m, scratch)
    }
}

/// `out = amm(a, b)` in every lane by product scanning in blocks of K
/// columns (seed 001's FIPS order): a block's K column sums stay in
/// registers while every product that reaches them is added, a × b first,
/// then the quotient digits of earlier blocks × n, then, column by column,
/// the block's own quotient digits (each needs its column complete) × n into
/// the block's later columns. Per product pair one row load and two IFMAs;
/// no accumulator goes through memory (the row kernel stores every position
/// at every step). Columns from D on are carried out as the result digits.
/// Same quotient digits, so the same output bit for bit, as [`amm_reg`].
///
/// K = 8: 16 measured 5% slower at 32 and 40 digits (more products of pad
/// rows at the blocks' edges), 12 between the two.
///
/// A block's edge rows (the first K and last K rows of a that reach it, and
/// the first K quotient rows) reach only some of its columns; they issue
/// only the products that land on a digit (`edge_rows!`), where reading
/// the zero pads cost about 14% more IFMAs at 40 digits. Intel Xeon family
/// 6 model 207, `kernel_bench mb8pow`, six interleaved rounds, best / median
/// us per exponentiation: 30 digits 181 / 187 against 203 / 240, 32 digits
/// 199 / 213 against 219 / 248, 40 digits 417 / 440 against 454 / 461.
///
/// Each column has two accumulators, one for the hi halves and one for the
/// lo halves, added together before the column is read (and, squaring,
/// before the doubling): 2K chains of one IFMA per row instead of K chains
/// of two. With K chains of two, Little's law allows K / 4.3 = 1.9 IFMAs a
/// cycle at the Intel CPU's 4.3-cycle latency, exactly its port limit, so
/// any hiccup stalled the block. Intel Xeon family 6 model 207, `kernel_bench
/// mb8`, eight interleaved runs, ns per eight: 32 digits product 1150-1173
/// against 1276-1341, squaring 824-894 against 901-957; 40 digits 1664-1697
/// against 1863-1903 and 1229-1277 against 1365-1454.
///
/// A block's own quotient digits form a chain: y_T needs column T in full,
/// which needs y_(T-1)'s products. Between two y's lie one IFMA (y), one
/// IFMA pair side by side (hi(y n_0) with the carry as addend, lo(y n_1)
/// onto the column) and one add, about 10 cycles; the products of y into
/// the later columns follow in program order, so that they do not take the
/// chain's ports first. Before, the column took both halves in one
/// register (two chained IFMAs, about 14 cycles a column). Intel Xeon
/// family 6 model 207, `kernel_bench mb8`, eight interleaved runs, best ns
/// per eight: 32 digits product 990 against 1001, squaring 724 against
/// 749; 40 digits 1460 against 1485, 1106 against 1134; `kernel_bench
/// mb8pow`, six rounds, best us per eight pows: 30 digits 1385 against
/// 1479, 32 digits 1482 against 1536, 40 digits 3132 against 3303.
/// (With the chain cut altogether, results wrong, the products ran about
/// 6-9% faster than before: what is left to win there is small.)
///
/// Lane bound: a column receives at most 4 D halves (< 2^52 each) plus one
/// carry below 2^9: below 2^60 for D <= 40.
///
/// # Safety
/// Call only where AVX-512F and AVX-512IFMA are available.
#[target_feature(enable = "avx512f,avx512ifma")]
pub fn amm_cols<const D: usize>(
    out: &mut Mb8<D>,
    a: &Mb8<D>,
    b: &Mb8<D>,
    m: &Mb8Mod<D>,
    scratch: &mut Scratch,
) {
    cols::<D, false>(out, a, b, m, scratch)
}

/// `out = amm(a, a)` in every lane above [`REG_MAX_D`] digits: the column
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
pub fn sqr_cols<const D: usize>(out: &mut Mb8<D>, a: &Mb8<D>, m: &Mb8Mod<D>, scratch: &mut Scratch) {
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

/// The positions of one product: 2D + 1 rows (of at most 2 MAX_D + 1) reused
/// across the products of an exponentiation, so that no product clears all
/// 81 rows (5 KiB) when it needs 41.
pub struct Scratch {
    /// [`sqr`]'s columns.
    t: [__m512i; 2 * MAX_D + 1],
    /// [`amm_cols`]'s operand rows, each between K zero rows on either side.
    cols: ColRows,
}

impl Scratch {
    /// Zeroed rows.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        // SAFETY: an all-zero __m512i is a valid value, and the struct is only
        // __m512i arrays.
        unsafe { core::mem::zeroed() }
    }

    /// Overwrite every row with zeros (the rows hold secret operands and
    /// quotient digits after a product).
    pub fn wipe(&mut self) {
        let zero = [0u8; 64];
        for v in self
            .t
            .iter_mut()
            .chain(self.cols.b.iter_mut())
            .chain(self.cols.y.iter_mut())
        {
            // SAFETY: a __m512i is 64 bytes; the volatile write keeps the wipe.
            unsafe { core::ptr::write_volatile(v as *mut __m512i as *mut [u8; 64], zero) };
        }
    }
}

/// Padded rows for [`amm_cols`]: row K + k holds digit k; the K rows on each
/// side stay zero, so that a block's loads need no bounds.
struct ColRows {
    b: [__m512i; MAX_D + 2 * K],
    y: [__m512i; MAX_D + 2 * K],
    n: [__m512i; MAX_D + 2 * K],
}

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

/// [`amm`] with the position window in registers: the steps of the module
/// documentation (operand scanning), position i + j of step i in
/// accumulator i + j. Both loops are unrolled, every accumulator index is
/// a constant, so the window slides by register renaming and no position
/// row is stored or reloaded. The carry of position i joins position i + 1.
///
/// The rows of a and n are read from memory at every step (`opaque`):
/// kept in registers across the unrolled steps they spill. With a loop
/// over i the window slid by one register move per position per step (20
/// moves beside 80 IFMAs at 20 digits; on Intel zmm moves run on the IFMA
/// ports) and LLVM spilled the rows. Intel Xeon family 6 model 207,
/// `kernel_bench mb8`, eight interleaved runs, best ns per eight products
/// at 20 digits: 322 against 394; `kernel_bench mb8pow` (with
/// [`sqr`]'s change) best us per eight 1024-bit powers 47.5 against 55.6.
///
/// Per step the chain from one quotient digit to the next is
/// lo(a_0 b_i) -> y_i -> lo(n_1 y_i) -> the shift's add: the products of the
/// step that do not feed position i + 1 overlap it.
///
/// The result is [`amm_cols`]' bit for bit (the same quotient digits, the
/// same sums). Above [`REG_MAX_D`] digits the window no longer fits the 32
/// registers and LLVM spills it (`amm_any` dispatches).
///
/// # Safety
/// Call only where AVX-512F and AVX-512IFMA are available.
// The unrolled J compares against constants (J = 0 included).
#[allow(clippy::absurd_extreme_comparisons)]
#[target_feature(enable = "avx512f,avx512ifma")]
pub fn amm_reg<const D: usize>(out: &mut Mb8<D>, a: &Mb8<D>, b: &Mb8<D>, m: &Mb8Mod<D>) {
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
        let (arows, nrows) = (super::ifma::opaque(a, I), super::ifma::opaque(&m.n, I));
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
pub fn sqr<const D: usize>(out: &mut Mb8<D>, a: &Mb8<D>, m: &Mb8Mod<D>, scratch: &mut Scratch) {
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
    // IFMA ports, and four pairs (three adds more per column) measured 10%
    // slower (kernel_bench mb8, 20 digits: 283-309 ns per eight squarings
    // against 312-331).
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
        let sqr_rows = super::ifma::opaque(&*sq, 0);
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
        let nrows = super::ifma::opaque(&m.n, I);
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
        let sqr_rows = super::ifma::opaque(&*sq, I + 1);
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

/// Constant-time table read per lane: lane l keeps entry `idx[l]`; every
/// entry is read for every lane (masked moves, no secret index).
#[target_feature(enable = "avx512f")]
fn gather<const D: usize>(out: &mut Mb8<D>, table: &[Mb8<D>], idx: &[u64; 8]) {
    // SAFETY: `idx` is 8 u64s; the load is unaligned-tolerant.
    let want = unsafe { _mm512_loadu_si512(idx.as_ptr().cast()) };
    let one = _mm512_set1_epi64(1);
    for j0 in (0..D).step_by(8) {
        let j1 = (j0 + 8).min(D);
        let mut acc = [_mm512_setzero_si512(); 8];
        let mut k = _mm512_setzero_si512();
        for entry in table {
            let hit = _mm512_cmpeq_epu64_mask(want, k);
            for j in j0..j1 {
                acc[j - j0] = _mm512_mask_mov_epi64(acc[j - j0], hit, ld!(&entry.0[j]));
            }
            k = _mm512_add_epi64(k, one);
        }
        for j in j0..j1 {
            // SAFETY: the row is 64 bytes inside a 64-byte aligned `Mb8`.
            unsafe { _mm512_store_si512(out.0[j].as_mut_ptr().cast(), acc[j - j0]) };
        }
    }
}

/// The window width of [`pow`] (public): 4 bits, not the single path's 5.
/// The eight-lane table is eight times wider: at 5 bits its 32 entries take
/// 40 KiB at 20 digits (80 KiB at 40), more than L1 holds beside the
/// kernel's own data, so every constant-time gather (which reads the whole
/// table) streams from L2. At 4 bits the 16 entries cost 25% more table
/// products but each gather about a third (Intel Xeon family 6 model 207,
/// `kernel_bench mb8pow`, 12 interleaved rounds, best / median us per
/// exponentiation, widths 3..6: 20 digits 60.0/65.5, 56.2/59.8, 58.2/70.9,
/// 69.4/84.4; 32 digits 277/287, 257/270, 267/282, 275/333; 40 digits
/// 527/538, 508/519, 507/554, 520/581).
const MB8_WINDOW: usize = 4;

/// The window at bit `pos` of each lane's exponent (public position).
fn windows(exps: &[&[u64]; LANES], pos: usize, width: usize) -> [u64; 8] {
    let mut w = [0u64; 8];
    for (l, e) in exps.iter().enumerate() {
        w[l] = portable52::window_of(e, pos, width) as u64;
    }
    w
}

/// `base_l^e` per lane for one PUBLIC exponent `e` shared by every lane
/// (blinding factors r^e, fault checks), out of the Montgomery domain (per
/// lane at most m_l, not yet fully reduced). Left-to-right binary: one
/// squaring per bit below the top one and a product per set bit, 16 + 1
/// for e = 65537 where [`pow`]'s windows would take 94. The loop follows
/// e's bits, which are public; the bases are secret and every lane runs
/// the same instructions. Bases below their moduli, in digits.
///
/// # Safety
/// Call only where AVX-512F and AVX-512IFMA are available.
#[target_feature(enable = "avx512f,avx512ifma")]
pub fn pow_public<const D: usize>(m: &Mb8Mod<D>, base: &Mb8<D>, e: &[u64]) -> Mb8<D> {
    let mut one = Mb8::<D>::ZERO;
    one.0[0] = [1; 8];
    let mut sc = Scratch::new();
    let bits = crate::limb::bit_len_vartime(e);
    // b = base R (Montgomery form); x = b^(top bit of e), or R when e = 0.
    let (mut b, mut xa, mut ya) = (Mb8::<D>::ZERO, Mb8::<D>::ZERO, Mb8::<D>::ZERO);
    amm_any(&mut b, base, &m.rr, m, &mut sc);
    if bits == 0 {
        amm_any(&mut xa, &m.rr, &one, m, &mut sc);
    } else {
        xa = b;
    }
    // Each product writes the other buffer; the references swap, not the rows.
    let (mut x, mut y) = (&mut xa, &mut ya);
    for i in (0..bits.saturating_sub(1)).rev() {
        sqr_any(y, x, m, &mut sc);
        core::mem::swap(&mut x, &mut y);
        if (e[i / 64] >> (i % 64)) & 1 == 1 {
            amm_any(y, x, &b, m, &mut sc);
            core::mem::swap(&mut x, &mut y);
        }
    }
    let mut out = Mb8::<D>::ZERO;
    amm_any(&mut out, x, &one, m, &mut sc);
    sc.wipe();
    b.zeroize();
    xa.zeroize();
    ya.zeroize();
    out
}

/// `(base_l f_l)^exp_l` per lane, out of the Montgomery domain (per lane at
/// most m_l, not yet fully reduced), f_l = 1 without `factor`: fixed 4-bit
/// windows (`MB8_WINDOW`), 4 squarings ([`sqr_any`]) and one table
/// product per window, the table read whole at every lookup. A factor (a
/// blinding factor) enters the base in the product that puts the base in
/// the Montgomery domain, amm(base, f R^2) = base f R, f R^2 itself made by
/// two products (f R, then f R^2). Bases and factors below their moduli, in
/// digits; the exponents all of the same limb count (public), their bits
/// secret.
///
/// # Safety
/// Call only where AVX-512F and AVX-512IFMA are available.
#[target_feature(enable = "avx512f,avx512ifma")]
pub fn pow<const D: usize>(
    m: &Mb8Mod<D>,
    base: &Mb8<D>,
    factor: Option<&Mb8<D>>,
    exps: &[&[u64]; LANES],
) -> Mb8<D> {
    let limbs = exps[0].len();
    assert!(exps.iter().all(|e| e.len() == limbs), "exponent lengths differ");
    let mut one = Mb8::<D>::ZERO;
    one.0[0] = [1; 8];
    let mut sc = Scratch::new();
    let mut amm = |out: &mut Mb8<D>, a: &Mb8<D>, b: &Mb8<D>, m: &Mb8Mod<D>| {
        if core::ptr::eq(a, b) {
            sqr_any(out, a, m, &mut sc)
        } else {
            amm_any(out, a, b, m, &mut sc)
        }
    };
    let width = MB8_WINDOW;
    let mut table = vec![Mb8::<D>::ZERO; 1 << width];
    amm(&mut table[0], &m.rr, &one, m);
    match factor {
        None => amm(&mut table[1], base, &m.rr, m),
        Some(f) => {
            let (mut fr, mut frr) = (Mb8::<D>::ZERO, Mb8::<D>::ZERO);
            amm(&mut fr, f, &m.rr, m);
            amm(&mut frr, &fr, &m.rr, m);
            amm(&mut table[1], base, &frr, m);
            fr.zeroize();
            frr.zeroize();
        }
    }
    for k in 2..(1 << width) {
        let mut x = Mb8::<D>::ZERO;
        if k % 2 == 0 {
            amm(&mut x, &table[k / 2], &table[k / 2], m);
        } else {
            amm(&mut x, &table[k - 1], &table[1], m);
        }
        table[k] = x;
    }
    let nw = portable52::windows_of(limbs, width);
    let (mut xa, mut ya, mut g) = (Mb8::<D>::ZERO, Mb8::<D>::ZERO, Mb8::<D>::ZERO);
    let mut w = windows(exps, (nw - 1) * width, width);
    gather(&mut xa, &table, &w);
    // Each product writes the other buffer; the references swap, not the
    // rows (copying them back measured 3% of RSA-3072 batch signing).
    let (mut x, mut y) = (&mut xa, &mut ya);
    for win in (0..nw - 1).rev() {
        for _ in 0..width {
            amm(y, x, x, m);
            core::mem::swap(&mut x, &mut y);
        }
        w = windows(exps, win * width, width);
        gather(&mut g, &table, &w);
        amm(y, x, &g, m);
        core::mem::swap(&mut x, &mut y);
    }
    let mut out = Mb8::<D>::ZERO;
    amm(&mut out, x, &one, m);
    sc.wipe();
    for e in table.iter_mut() {
        e.zeroize();
    }
    xa.zeroize();
    ya.zeroize();
    g.zeroize();
    w.zeroize();
    out
}
