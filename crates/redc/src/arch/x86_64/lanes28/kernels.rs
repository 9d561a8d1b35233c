//! The lane product, square and reduction (module documentation of
//! [`super`]: SOS, four rows a pass, the accumulator never carried until
//! the end), written once for both register widths over [`Ops`] and
//! inlined into each width's instances (`instances`), which carry the CPU
//! feature. The kernels read the operands' rows in place (the zero rows
//! above d included) and work in the caller's [`Scratch`]; the inner loops
//! run over zipped slices, so each bound is checked once per pass.

// Register arrays indexed by counters bounded by d.
#![allow(clippy::needless_range_loop)]

use super::widths::{Ops, Vector};
use super::{MAX_D, MIN_D, Mb, MbMod, PAD, Scratch};

/// The digit mask 2^28 - 1.
const MASK: u64 = (1 << 28) - 1;

/// A quotient's mask: the digit in the low 32 bits, which are all that
/// `vpmuludq` reads of it, and the high 32 bits kept. With 2^28 - 1 the
/// compiler knows the quotient fits 28 bits, drops the 32-bit masks that
/// `vpmuludq` applies to it, and where it multiplies in another block (the
/// next pass's chain is made in this pass's loop) selects a 64-bit
/// multiplication: three `vpmuludq` and shifts for each of the quotient's
/// products (docs/PERFORMANCE.md, "Batch signing without IFMA: the
/// radix-2^28 lane kernels").
const QUOTIENT_MASK: u64 = 0xffff_ffff_0fff_ffff;

/// `x + y` per lane.
#[inline(always)]
fn add<V: Ops>(x: V, y: V) -> V {
    x.add(y)
}

/// Rows as registers: the kernels read operands in place.
#[inline(always)]
pub(super) fn regs<V: Vector>(x: &[V::Row]) -> &[V] {
    const {
        assert!(core::mem::size_of::<V::Row>() == core::mem::size_of::<V>());
        assert!(core::mem::align_of::<V::Row>() == core::mem::align_of::<V>());
    }
    // SAFETY: a row is `repr(C, align)` over u64s with the register's size
    // and alignment (checked above), and every bit pattern is valid for both.
    unsafe { core::slice::from_raw_parts(x.as_ptr().cast(), x.len()) }
}

/// [`regs`], mutable.
#[inline(always)]
pub(super) fn regs_mut<V: Vector>(x: &mut [V::Row]) -> &mut [V] {
    const {
        assert!(core::mem::size_of::<V::Row>() == core::mem::size_of::<V>());
        assert!(core::mem::align_of::<V::Row>() == core::mem::align_of::<V>());
    }
    // SAFETY: as in `regs`; the borrow is unique.
    unsafe { core::slice::from_raw_parts_mut(x.as_mut_ptr().cast(), x.len()) }
}

/// `out = amm(a, b)` per lane (module documentation).
#[inline(always)]
pub(super) fn amm<V: Vector + Ops>(out: &mut Mb<V>, a: &Mb<V>, b: &Mb<V>, m: &MbMod<V>, sc: &mut Scratch<V>) {
    let d = m.digits();
    assert!(a.d == d && b.d == d && out.d == d && (MIN_D..=MAX_D).contains(&d));
    let acc = &mut regs_mut::<V>(&mut sc.acc)[..2 * d + PAD];
    acc.fill(V::zero());
    product(acc, regs::<V>(&a.rows), regs::<V>(&b.rows), d);
    reduce(acc, m, d);
    store_result(out, acc, d);
}

/// `out = amm(a, a)` per lane, the cross products once, doubled.
#[inline(always)]
pub(super) fn sqr<V: Vector + Ops>(out: &mut Mb<V>, a: &Mb<V>, m: &MbMod<V>, sc: &mut Scratch<V>) {
    let d = m.digits();
    assert!(a.d == d && out.d == d && (MIN_D..=MAX_D).contains(&d));
    let acc = &mut regs_mut::<V>(&mut sc.acc)[..2 * d + PAD];
    acc.fill(V::zero());
    let twice = &mut regs_mut::<V>(&mut sc.twice)[..d + PAD];
    for (t, &x) in twice.iter_mut().zip(regs::<V>(&a.rows)) {
        *t = x.add(x);
    }
    square(acc, regs::<V>(&a.rows), twice, d);
    reduce(acc, m, d);
    store_result(out, acc, d);
}

/// Columns of a b, four rows of b a pass: column i + j gets a_j b_i.
#[inline(always)]
fn product<V: Vector + Ops>(acc: &mut [V], a: &[V], b: &[V], d: usize) {
    for i in (0..d).step_by(4) {
        let (b0, b1, b2, b3) = (b[i], b[i + 1], b[i + 2], b[i + 3]);
        let w = &mut acc[i..i + d + 3];
        w[0] = add(w[0], a[0].mul(b0));
        w[1] = add(w[1], add(a[1].mul(b0), a[0].mul(b1)));
        w[2] = add(w[2], add(add(a[2].mul(b0), a[1].mul(b1)), a[0].mul(b2)));
        // Rows past d, and reads of a past d, are zero.
        four_rows(&mut w[3..], &a[..d + 3], [b0, b1, b2, b3]);
    }
}

/// Columns of a^2: a_i (2 a_j) for i < j, four rows i a pass, then the
/// diagonal a_i^2.
#[inline(always)]
fn square<V: Vector + Ops>(acc: &mut [V], a: &[V], twice: &[V], d: usize) {
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
                    s = add(s, xr.mul(twice[c - i - r]));
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
        acc[2 * i] = add(acc[2 * i], a[i].mul(a[i]));
    }
}

/// d Montgomery reduction rows on the accumulator, in order: the first
/// d mod 4 one by one, then four a pass. A pass's four quotients form a
/// chain (each needs the previous row's carry); the next pass's chain
/// needs only this pass's first four columns, so it is computed right
/// after them, and its latency overlaps the rest of this pass's columns
/// (software pipelining; without it the chain of every pass waits behind
/// the whole previous pass). After it, columns d..2d carried are the result.
#[inline(always)]
fn reduce<V: Vector + Ops>(acc: &mut [V], md: &MbMod<V>, d: usize) {
    let m = regs::<V>(&md.m.rows);
    let k0 = regs::<V>(core::slice::from_ref(&md.k0))[0];
    let mask = V::splat(QUOTIENT_MASK);
    let first = d % 4;
    for i in 0..first {
        reduce1(&mut acc[i..i + d + 1], m, k0, mask, d);
    }
    let passes = d / 4;
    let mut q = chain(&mut acc[first..first + 5], m, k0, mask);
    for k in 0..passes {
        let i = first + 4 * k;
        let w = &mut acc[i..i + d + 3];
        multiples(&mut w[4..8], m, 4, q);
        // No closure here: it would be compiled apart, without the
        // width's feature.
        let next = if k + 1 < passes {
            chain(&mut w[4..9], m, k0, mask)
        } else {
            q
        };
        multiples(&mut w[8..], m, 8, q);
        q = next;
    }
}

/// The quotient digits of the four rows whose columns start `w` (five
/// columns: the four rows' and the one their carry enters): each row's
/// column completed with the multiples of m of the rows before it in the
/// pass and the previous column's carry; the last row's carry added into
/// `w[4]`. The columns themselves are spent (their low digits are zero).
#[inline(always)]
fn chain<V: Vector + Ops>(w: &mut [V], m: &[V], k0: V, mask: V) -> [V; 4] {
    let t0 = w[0];
    let q0 = quotient(t0, k0, mask);
    let t0 = add(t0, m[0].mul(q0));
    let t1 = add(add(w[1], m[1].mul(q0)), carry(t0));
    let q1 = quotient(t1, k0, mask);
    let t1 = add(t1, m[0].mul(q1));
    let t2 = add(add(w[2], add(m[2].mul(q0), m[1].mul(q1))), carry(t1));
    let q2 = quotient(t2, k0, mask);
    let t2 = add(t2, m[0].mul(q2));
    let t3 = add(w[3], add(m[3].mul(q0), m[2].mul(q1)));
    let t3 = add(t3, add(m[1].mul(q2), carry(t2)));
    let q3 = quotient(t3, k0, mask);
    let t3 = add(t3, m[0].mul(q3));
    w[4] = w[4].add(carry(t3));
    [q0, q1, q2, q3]
}

/// Column `from + c` of a pass (`w[c]`) gets the four rows' multiples of m:
/// m_(j) q0 + m_(j-1) q1 + m_(j-2) q2 + m_(j-3) q3, j = from + c (reads
/// of m past d are zero).
#[inline(always)]
fn multiples<V: Vector + Ops>(w: &mut [V], m: &[V], from: usize, q: [V; 4]) {
    let n = w.len();
    four_rows(w, &m[from - 3..from + n], q);
}

/// `w[c] += x_(c+3) y0 + x_(c+2) y1 + x_(c+1) y2 + x_c y3` for every column
/// c of `w` (`x` has three rows more than `w`): four rows of a product at
/// once. The three rows before x_(c+3) stay in registers from the previous
/// column, so each column loads one row of x and its accumulator: the loop
/// is bound by the multiplier, not by loads.
#[inline(always)]
fn four_rows<V: Vector + Ops>(w: &mut [V], x: &[V], y: [V; 4]) {
    let (mut x1, mut x2, mut x3) = (x[2], x[1], x[0]);
    for (wc, &x0) in w.iter_mut().zip(&x[3..]) {
        let s = add(x0.mul(y[0]), x1.mul(y[1]));
        let u = add(x2.mul(y[2]), x3.mul(y[3]));
        *wc = add(*wc, s.add(u));
        (x3, x2, x1) = (x2, x1, x0);
    }
}

/// The quotient digit of a column sum: lo28(t k0) in the low 32 bits
/// (`mask`: `QUOTIENT_MASK` in every lane).
#[inline(always)]
fn quotient<V: Vector + Ops>(t: V, k0: V, mask: V) -> V {
    t.mul(k0).and(mask)
}

/// The carry of a column whose low 28 bits the reduction cleared.
#[inline(always)]
fn carry<V: Vector + Ops>(t: V) -> V {
    t.carry()
}

/// One reduction row on the window `w` (column i at `w[0]`).
#[inline(always)]
fn reduce1<V: Vector + Ops>(w: &mut [V], m: &[V], k0: V, mask: V, d: usize) {
    let t0 = w[0];
    let q0 = quotient(t0, k0, mask);
    let t0 = add(t0, m[0].mul(q0));
    for (wj, &mj) in w[1..].iter_mut().zip(&m[1..d]) {
        *wj = add(*wj, mj.mul(q0));
    }
    w[1] = w[1].add(carry(t0));
}

/// Columns d..2d carried digit by digit into `out`'s d rows (the result is
/// below 2m < R: nothing carries out of the top digit).
#[inline(always)]
fn store_result<V: Vector + Ops>(out: &mut Mb<V>, acc: &[V], d: usize) {
    let mask = V::splat(MASK);
    let mut c = V::zero();
    for (row, &x) in regs_mut::<V>(&mut out.rows[..d]).iter_mut().zip(&acc[d..2 * d]) {
        let t = x.add(c);
        *row = t.and(mask);
        c = t.carry();
    }
}
