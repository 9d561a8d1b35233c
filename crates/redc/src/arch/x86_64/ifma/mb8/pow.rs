//! The eight-lane exponentiations: the constant-time table read per lane
//! (`gather`), the fixed 4-bit window exponentiation [`pow`] (secret
//! exponents of one public length) and the left-to-right binary [`pow_public`]
//! (one public exponent for every lane). The window method of Shand and
//! Vuillemin, "Fast Implementations of RSA Cryptography", section 4.2.
//! Results per lane at most m_l, not yet fully reduced.

use core::arch::x86_64::*;

use zeroize::Zeroize;

use crate::arch::portable52;

use super::{LANES, Mb8, Mb8Mod, Scratch, amm_any, sqr_any};

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
/// table) streams from L2. At 4 bits the 16 entries cost more table
/// products but each gather reads half the bytes (docs/PERFORMANCE.md,
/// "Eight-lane exponentiation: 4-bit windows", for the widths 3 to 6).
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
pub(super) fn pow_public<const D: usize>(m: &Mb8Mod<D>, base: &Mb8<D>, e: &[u64]) -> Mb8<D> {
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
pub(super) fn pow<const D: usize>(
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
    // rows (docs/PERFORMANCE.md, "Eight-lane exponentiation: buffers
    // swapped, not copied").
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
