//! The four-lane product, square and reduction (module documentation of
//! [`super`]: SOS, four rows a pass, the accumulator never carried until
//! the end). The kernels read the operands' rows in place (the zero rows
//! above d included) and work in the caller's [`Scratch`]; the inner loops
//! run over zipped slices, so each bound is checked once per pass.

// Register arrays indexed by counters bounded by d.
#![allow(clippy::needless_range_loop)]

use core::arch::x86_64::*;

use super::{MAX_D, MIN_D, Mb4, Mb4Mod, PAD, Quad};

type V = __m256i;

/// Accumulator columns: 2d, and the ones the passes past d write (zero).
const COLS: usize = 2 * MAX_D + PAD;

/// The digit mask 2^28 - 1 in every lane.
const MASK: i64 = (1 << 28) - 1;

/// `x + y` per 64-bit lane.
#[inline(always)]
fn add(x: V, y: V) -> V {
    // SAFETY: AVX2 is enabled in every caller (the entries below).
    unsafe { _mm256_add_epi64(x, y) }
}

/// `lo32(x) lo32(y)` per 64-bit lane (`vpmuludq`).
#[inline(always)]
fn mul(x: V, y: V) -> V {
    // SAFETY: as in `add`.
    unsafe { _mm256_mul_epu32(x, y) }
}

/// Rows as registers: the kernels read operands in place.
#[inline(always)]
fn regs(x: &[Quad]) -> &[V] {
    const _: () = assert!(core::mem::size_of::<Quad>() == 32 && core::mem::align_of::<Quad>() == 32);
    // SAFETY: `Quad` is `repr(C, align(32))` over four u64s: the size and
    // alignment of `__m256i`, and every bit pattern is valid for both.
    unsafe { core::slice::from_raw_parts(x.as_ptr().cast(), x.len()) }
}

/// [`regs`], mutable.
#[inline(always)]
fn regs_mut(x: &mut [Quad]) -> &mut [V] {
    // SAFETY: as in `regs`; the borrow is unique.
    unsafe { core::slice::from_raw_parts_mut(x.as_mut_ptr().cast(), x.len()) }
}

/// The rows a product or square works in, kept by the caller across a
/// whole exponentiation so that none is zeroed or copied beyond what one
/// call uses: the accumulator's 2d + PAD columns and the square's 2a.
/// Secret; wiped on drop.
pub struct Scratch {
    acc: Vec<Quad>,
    twice: Vec<Quad>,
}

impl Scratch {
    /// Rows for every digit count up to MAX_D.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Scratch {
        Scratch {
            acc: vec![Quad::default(); COLS],
            twice: vec![Quad::default(); MAX_D + PAD],
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        for q in self.acc.iter_mut().chain(self.twice.iter_mut()) {
            zeroize::Zeroize::zeroize(&mut q.0);
        }
    }
}

/// `out = amm(a, b)` per lane (module documentation).
///
/// # Safety
/// Call only where AVX2 is available.
#[target_feature(enable = "avx2")]
pub(super) fn amm(out: &mut Mb4, a: &Mb4, b: &Mb4, m: &Mb4Mod, sc: &mut Scratch) {
    let d = m.digits();
    assert!(a.d == d && b.d == d && out.d == d && (MIN_D..=MAX_D).contains(&d));
    let acc = &mut regs_mut(&mut sc.acc)[..2 * d + PAD];
    acc.fill(_mm256_setzero_si256());
    product(acc, regs(&a.rows), regs(&b.rows), d);
    reduce(acc, m, d);
    store_result(out, acc, d);
}

/// `out = amm(a, a)` per lane, the cross products once, doubled.
///
/// # Safety
/// Call only where AVX2 is available.
#[target_feature(enable = "avx2")]
pub(super) fn sqr(out: &mut Mb4, a: &Mb4, m: &Mb4Mod, sc: &mut Scratch) {
    let d = m.digits();
    assert!(a.d == d && out.d == d && (MIN_D..=MAX_D).contains(&d));
    let acc = &mut regs_mut(&mut sc.acc)[..2 * d + PAD];
    acc.fill(_mm256_setzero_si256());
    let twice = &mut regs_mut(&mut sc.twice)[..d + PAD];
    for (t, &x) in twice.iter_mut().zip(regs(&a.rows)) {
        *t = add(x, x);
    }
    square(acc, regs(&a.rows), twice, d);
    reduce(acc, m, d);
    store_result(out, acc, d);
}

/// Columns of a b, four rows of b a pass: column i + j gets a_j b_i.
#[target_feature(enable = "avx2")]
fn product(acc: &mut [V], a: &[V], b: &[V], d: usize) {
    for i in (0..d).step_by(4) {
        let (b0, b1, b2, b3) = (b[i], b[i + 1], b[i + 2], b[i + 3]);
        let w = &mut acc[i..i + d + 3];
        w[0] = add(w[0], mul(a[0], b0));
        w[1] = add(w[1], add(mul(a[1], b0), mul(a[0], b1)));
        w[2] = add(w[2], add(add(mul(a[2], b0), mul(a[1], b1)), mul(a[0], b2)));
        // Rows past d, and reads of a past d, are zero.
        four_rows(&mut w[3..], &a[..d + 3], [b0, b1, b2, b3]);
    }
}

/// Columns of a^2: a_i (2 a_j) for i < j, four rows i a pass, then the
/// diagonal a_i^2.
#[target_feature(enable = "avx2")]
fn square(acc: &mut [V], a: &[V], twice: &[V], d: usize) {
    for i in (0..d).step_by(4) {
        let x = [a[i], a[i + 1], a[i + 2], a[i + 3]];
        // Column c gets x_r 2a_(c - i - r) from row i + r where
        // c - i - r > i + r: every row from column 2 i + 7 on.
        let first_full = 2 * i + 7;
        let end = i + d + 3;
        for c in 2 * i + 1..first_full.min(end) {
            let mut s = acc[c];
            for (r, &xr) in x.iter().enumerate() {
                if c > 2 * (i + r) {
                    s = add(s, mul(xr, twice[c - i - r]));
                }
            }
            acc[c] = s;
        }
        if first_full < end {
            // Column c reads 2a from c - i - 3 to c - i.
            let (lo, hi) = (first_full - i, end - i);
            four_rows(&mut acc[first_full..end], &twice[lo - 3..hi], x);
        }
    }
    for i in 0..d {
        acc[2 * i] = add(acc[2 * i], mul(a[i], a[i]));
    }
}

/// d Montgomery reduction rows on the accumulator, in order: the first
/// d mod 4 one by one, then four a pass. A pass's four quotients form a
/// chain (each needs the previous row's carry); the next pass's chain
/// needs only this pass's first four columns, so it is computed right
/// after them, and its latency overlaps the rest of this pass's columns
/// (software pipelining; without it the chain of every pass waits behind
/// the whole previous pass). After it, columns d..2d carried are the result.
#[target_feature(enable = "avx2")]
fn reduce(acc: &mut [V], md: &Mb4Mod, d: usize) {
    let m = regs(&md.m.rows);
    let k0 = regs(core::slice::from_ref(&md.k0))[0];
    let first = d % 4;
    for i in 0..first {
        reduce1(&mut acc[i..i + d + 1], m, k0, d);
    }
    let passes = d / 4;
    let mut q = chain(&mut acc[first..first + 5], m, k0);
    for k in 0..passes {
        let i = first + 4 * k;
        let w = &mut acc[i..i + d + 3];
        multiples(&mut w[4..8], m, 4, q);
        let next = (k + 1 < passes).then(|| chain(&mut w[4..9], m, k0));
        multiples(&mut w[8..], m, 8, q);
        if let Some(n) = next {
            q = n;
        }
    }
}

/// The quotient digits of the four rows whose columns start `w` (five
/// columns: the four rows' and the one their carry enters): each row's
/// column completed with the multiples of m of the rows before it in the
/// pass and the previous column's carry; the last row's carry added into
/// `w[4]`. The columns themselves are spent (their low digits are zero).
#[inline(always)]
fn chain(w: &mut [V], m: &[V], k0: V) -> [V; 4] {
    let t0 = w[0];
    let q0 = quotient(t0, k0);
    let t0 = add(t0, mul(m[0], q0));
    let t1 = add(add(w[1], mul(m[1], q0)), carry(t0));
    let q1 = quotient(t1, k0);
    let t1 = add(t1, mul(m[0], q1));
    let t2 = add(add(w[2], add(mul(m[2], q0), mul(m[1], q1))), carry(t1));
    let q2 = quotient(t2, k0);
    let t2 = add(t2, mul(m[0], q2));
    let t3 = add(w[3], add(mul(m[3], q0), mul(m[2], q1)));
    let t3 = add(t3, add(mul(m[1], q2), carry(t2)));
    let q3 = quotient(t3, k0);
    let t3 = add(t3, mul(m[0], q3));
    w[4] = add(w[4], carry(t3));
    [q0, q1, q2, q3]
}

/// Column `from + c` of a pass (`w[c]`) gets the four rows' multiples of m:
/// m_(j) q0 + m_(j-1) q1 + m_(j-2) q2 + m_(j-3) q3, j = from + c (reads
/// of m past d are zero).
#[inline(always)]
fn multiples(w: &mut [V], m: &[V], from: usize, q: [V; 4]) {
    let n = w.len();
    four_rows(w, &m[from - 3..from + n], q);
}

/// `w[c] += x_(c+3) y0 + x_(c+2) y1 + x_(c+1) y2 + x_c y3` for every column
/// c of `w` (`x` has three rows more than `w`): four rows of a product at
/// once. The three rows before x_(c+3) stay in registers from the previous
/// column, so each column loads one row of x and its accumulator: the loop
/// is bound by the multiplier, not by loads.
#[inline(always)]
fn four_rows(w: &mut [V], x: &[V], y: [V; 4]) {
    let (mut x1, mut x2, mut x3) = (x[2], x[1], x[0]);
    for (wc, &x0) in w.iter_mut().zip(&x[3..]) {
        let s = add(mul(x0, y[0]), mul(x1, y[1]));
        let u = add(mul(x2, y[2]), mul(x3, y[3]));
        *wc = add(*wc, add(s, u));
        (x3, x2, x1) = (x2, x1, x0);
    }
}

/// The quotient digit of a column sum: lo28(t k0).
#[inline(always)]
fn quotient(t: V, k0: V) -> V {
    // SAFETY: as in `add`.
    unsafe { _mm256_and_si256(mul(t, k0), _mm256_set1_epi64x(MASK)) }
}

/// The carry of a column whose low 28 bits the reduction cleared.
#[inline(always)]
fn carry(t: V) -> V {
    // SAFETY: as in `add`.
    unsafe { _mm256_srli_epi64::<28>(t) }
}

/// One reduction row on the window `w` (column i at `w[0]`).
#[target_feature(enable = "avx2")]
fn reduce1(w: &mut [V], m: &[V], k0: V, d: usize) {
    let t0 = w[0];
    let q0 = quotient(t0, k0);
    let t0 = add(t0, mul(m[0], q0));
    for (wj, &mj) in w[1..].iter_mut().zip(&m[1..d]) {
        *wj = add(*wj, mul(mj, q0));
    }
    w[1] = add(w[1], carry(t0));
}

/// Columns d..2d carried digit by digit into `out`'s d rows (the result is
/// below 2m < R: nothing carries out of the top digit).
#[target_feature(enable = "avx2")]
fn store_result(out: &mut Mb4, acc: &[V], d: usize) {
    let mask = _mm256_set1_epi64x(MASK);
    let mut c = _mm256_setzero_si256();
    for (row, &x) in regs_mut(&mut out.rows[..d]).iter_mut().zip(&acc[d..2 * d]) {
        let t = add(x, c);
        *row = _mm256_and_si256(t, mask);
        c = carry(t);
    }
}
