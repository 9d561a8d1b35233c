//! The lane exponentiation: the constant-time table read per lane
//! (`gather`) and fixed 4-bit windows (`pow`), the window method of Shand
//! and Vuillemin, "Fast Implementations of RSA Cryptography", section 4.2.
//! Results per lane below 2 m_l, not yet fully reduced.

use zeroize::Zeroize;

use crate::arch::radix;

use super::kernels::{regs, regs_mut};
use super::widths::{Ops, Vector};
use super::{Mb, MbMod, Scratch};

/// The window width (public): 4 bits, a 16-entry table. Four lanes at 55
/// digits (RSA-3072's primes) make a 28 KiB table; at 5 bits it would be
/// 56 KiB, beyond L1.
const WINDOW: usize = 4;

/// Constant-time table read per lane: lane l keeps entry `idx[l]`; every
/// entry is read whole for every lane (masks from compares, no secret
/// index or branch). Inlined into each width's instance (`instances`).
#[inline(always)]
pub(super) fn gather<V: Vector + Ops>(out: &mut Mb<V>, table: &[Mb<V>], idx: &[u64]) {
    let mut want = V::Row::default();
    want.as_mut().copy_from_slice(idx);
    let want = regs::<V>(core::slice::from_ref(&want))[0];
    let d = out.d;
    let o = &mut regs_mut::<V>(&mut out.rows)[..d];
    o.fill(V::zero());
    let mut k = V::zero();
    let one = V::splat(1);
    for entry in table {
        let hit = want.equal(k);
        for (x, &e) in o.iter_mut().zip(&regs::<V>(&entry.rows)[..d]) {
            *x = x.or(e.and(hit));
        }
        k = k.add(one);
    }
}

/// The window at bit `pos` (public position) of each lane's exponent, into
/// `w` (one slot per lane; secret, wiped by the caller).
fn windows(w: &mut [u64], exps: &[&[u64]], pos: usize) {
    for (x, e) in w.iter_mut().zip(exps) {
        *x = radix::window_of(e, pos, WINDOW) as u64;
    }
}

/// `(base_l f_l)^exp_l` per lane, out of the Montgomery domain (below
/// 2 m_l), f_l = 1 without `factor`: fixed 4-bit windows, 4 squares and
/// one table product per window, the table read whole at every window. A
/// factor (a blinding factor) enters with the base: table[1] =
/// amm(base, f R^2) = base f R, f R^2 made by two products (f R, then
/// f R^2). Bases and factors below their moduli; the exponents all of one
/// limb count (public), their bits secret.
/// The kernels are the width's instances ([`Vector`]).
///
/// # Safety
/// The CPU has the width's feature.
pub(super) unsafe fn pow<V: Vector>(
    m: &MbMod<V>,
    base: &Mb<V>,
    factor: Option<&Mb<V>>,
    exps: &[&[u64]],
) -> Mb<V> {
    assert_eq!(exps.len(), V::LANES, "one exponent per lane");
    let limbs = exps[0].len();
    assert!(exps.iter().all(|e| e.len() == limbs), "exponent lengths differ");
    let d = m.digits();
    let one = Mb::<V>::one(d);
    let mut sc = Scratch::<V>::new();
    let sc = &mut sc;
    // SAFETY (the kernel calls below): the caller's contract.
    let amm =
        |out: &mut Mb<V>, a: &Mb<V>, b: &Mb<V>, sc: &mut Scratch<V>| unsafe { V::amm(out, a, b, m, sc) };
    let sqr = |out: &mut Mb<V>, a: &Mb<V>, sc: &mut Scratch<V>| unsafe { V::sqr(out, a, m, sc) };
    let gather = |out: &mut Mb<V>, table: &[Mb<V>], idx: &[u64]| unsafe { V::gather(out, table, idx) };
    let mut table: Vec<Mb<V>> = (0..1 << WINDOW).map(|_| Mb::zero(d)).collect();
    amm(&mut table[0], &m.rr, &one, sc);
    match factor {
        None => amm(&mut table[1], base, &m.rr, sc),
        Some(f) => {
            let (mut fr, mut frr) = (Mb::zero(d), Mb::zero(d));
            amm(&mut fr, f, &m.rr, sc);
            amm(&mut frr, &fr, &m.rr, sc);
            amm(&mut table[1], base, &frr, sc);
        }
    }
    for k in 2..1 << WINDOW {
        let mut x = Mb::<V>::zero(d);
        if k % 2 == 0 {
            sqr(&mut x, &table[k / 2], sc);
        } else {
            amm(&mut x, &table[k - 1], &table[1], sc);
        }
        table[k] = x;
    }
    let nw = radix::windows_of(limbs, WINDOW);
    let (mut xa, mut ya, mut g) = (Mb::<V>::zero(d), Mb::<V>::zero(d), Mb::<V>::zero(d));
    let mut w = vec![0u64; V::LANES];
    windows(&mut w, exps, (nw - 1) * WINDOW);
    gather(&mut xa, &table, &w);
    // Each product writes the other buffer; the references swap.
    let (mut x, mut y) = (&mut xa, &mut ya);
    for win in (0..nw - 1).rev() {
        for _ in 0..WINDOW {
            sqr(y, x, sc);
            core::mem::swap(&mut x, &mut y);
        }
        windows(&mut w, exps, win * WINDOW);
        gather(&mut g, &table, &w);
        amm(y, x, &g, sc);
        core::mem::swap(&mut x, &mut y);
    }
    let mut out = Mb::<V>::zero(d);
    amm(&mut out, x, &one, sc);
    w.zeroize();
    out
}
