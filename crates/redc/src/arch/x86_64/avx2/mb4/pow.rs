//! The four-lane exponentiation: the constant-time table read per lane
//! (`gather`) and fixed 4-bit windows (`pow`), the window method of Shand
//! and Vuillemin, "Fast Implementations of RSA Cryptography", section 4.2.
//! Results per lane below 2 m_l, not yet fully reduced.

use core::arch::x86_64::*;

use zeroize::Zeroize;

use crate::arch::radix;

use super::kernels::{self, Scratch};
use super::{LANES, Mb4, Mb4Mod};

/// The window width (public): 4 bits, a 16-entry table. At 37 digits
/// (RSA-2048's primes) the table is 19 KiB and stays in L1 beside the
/// kernel's stack; at 5 bits it would be 38 KiB.
const WINDOW: usize = 4;

/// Constant-time table read per lane: lane l keeps entry `idx[l]`; every
/// entry is read whole for every lane (masks from compares, no secret
/// index or branch).
#[target_feature(enable = "avx2")]
fn gather(out: &mut Mb4, table: &[Mb4], idx: &[u64; LANES]) {
    // SAFETY: `idx` is four u64s; the load tolerates any alignment.
    let want = unsafe { _mm256_loadu_si256(idx.as_ptr().cast()) };
    let d = out.d;
    for row in out.rows[..d].iter_mut() {
        *row = super::Quad::default();
    }
    let mut k = _mm256_setzero_si256();
    let one = _mm256_set1_epi64x(1);
    for entry in table {
        let hit = _mm256_cmpeq_epi64(want, k);
        for (o, e) in out.rows[..d].iter_mut().zip(&entry.rows[..d]) {
            // SAFETY: `Quad` is 32 bytes, 32-byte aligned.
            unsafe {
                let x = _mm256_load_si256(e.0.as_ptr().cast());
                let y = _mm256_load_si256(o.0.as_ptr().cast());
                _mm256_store_si256(
                    o.0.as_mut_ptr().cast(),
                    _mm256_or_si256(y, _mm256_and_si256(x, hit)),
                );
            }
        }
        k = _mm256_add_epi64(k, one);
    }
}

/// The window at bit `pos` of each lane's exponent (public position).
fn windows(exps: &[&[u64]; LANES], pos: usize) -> [u64; LANES] {
    core::array::from_fn(|l| radix::window_of(exps[l], pos, WINDOW) as u64)
}

/// `(base_l f_l)^exp_l` per lane, out of the Montgomery domain (below
/// 2 m_l), f_l = 1 without `factor`: fixed 4-bit windows, 4 squares and
/// one table product per window, the table read whole at every window. A
/// factor (a blinding factor) enters with the base: table[1] =
/// amm(base, f R^2) = base f R, f R^2 made by two products (f R, then
/// f R^2). Bases and factors below their moduli; the exponents all of one
/// limb count (public), their bits secret.
///
/// # Safety
/// Call only where AVX2 is available.
#[target_feature(enable = "avx2")]
pub(super) fn pow(m: &Mb4Mod, base: &Mb4, factor: Option<&Mb4>, exps: &[&[u64]; LANES]) -> Mb4 {
    let limbs = exps[0].len();
    assert!(exps.iter().all(|e| e.len() == limbs), "exponent lengths differ");
    let d = m.digits();
    let one = Mb4::one(d);
    let mut sc = Scratch::new();
    let sc = &mut sc;
    let mut table: Vec<Mb4> = (0..1 << WINDOW).map(|_| Mb4::zero(d)).collect();
    kernels::amm(&mut table[0], &m.rr, &one, m, sc);
    match factor {
        None => kernels::amm(&mut table[1], base, &m.rr, m, sc),
        Some(f) => {
            let (mut fr, mut frr) = (Mb4::zero(d), Mb4::zero(d));
            kernels::amm(&mut fr, f, &m.rr, m, sc);
            kernels::amm(&mut frr, &fr, &m.rr, m, sc);
            kernels::amm(&mut table[1], base, &frr, m, sc);
        }
    }
    for k in 2..1 << WINDOW {
        let mut x = Mb4::zero(d);
        if k % 2 == 0 {
            kernels::sqr(&mut x, &table[k / 2], m, sc);
        } else {
            kernels::amm(&mut x, &table[k - 1], &table[1], m, sc);
        }
        table[k] = x;
    }
    let nw = radix::windows_of(limbs, WINDOW);
    let (mut xa, mut ya, mut g) = (Mb4::zero(d), Mb4::zero(d), Mb4::zero(d));
    let mut w = windows(exps, (nw - 1) * WINDOW);
    gather(&mut xa, &table, &w);
    // Each product writes the other buffer; the references swap.
    let (mut x, mut y) = (&mut xa, &mut ya);
    for win in (0..nw - 1).rev() {
        for _ in 0..WINDOW {
            kernels::sqr(y, x, m, sc);
            core::mem::swap(&mut x, &mut y);
        }
        w = windows(exps, win * WINDOW);
        gather(&mut g, &table, &w);
        kernels::amm(y, x, &g, m, sc);
        core::mem::swap(&mut x, &mut y);
    }
    let mut out = Mb4::zero(d);
    kernels::amm(&mut out, x, &one, m, sc);
    w.zeroize();
    out
}
