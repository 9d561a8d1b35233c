//! Constant-time carry normalisation of the dual kernel's lanes into 52-bit
//! digits (`normalize`), and the digit-wise sum of two almost-Montgomery
//! outputs (`add_dual`). No branch or index depends on the values.
//!
//! # Normalisation (constant time)
//!
//! After the last step the lanes are split into digit + carry; the carries
//! (< 2^8) move up one position, leaving digits at most 2^52 - 1 + 2^8. The
//! remaining carries are single bits: G = (digit > 2^52 - 1) generates,
//! P = (digit == 2^52 - 1) propagates, and the carry-in mask of all positions
//! at once is ((G << 1) + P) ^ P, computed per half on a u128 of lane bits
//! (the other half's bits set to 1 in P so that carries pass through them).
//! No branch or index depends on the values.

use core::arch::x86_64::*;

use crate::arch::portable52::MASK;

use super::W;
use super::lanes::Lanes;
use super::opaque::gpr;

/// Carry-normalise the lanes of `v` (each below 2^60, value below 2^(52 d)) to
/// 52-bit digits and store them. Constant time (see the module comment).
#[target_feature(enable = "avx512f")]
pub(super) fn normalize<const NR: usize>(out: &mut Lanes<NR>, v: &[__m512i; NR]) {
    let zero = _mm512_setzero_si512();
    let mask = _mm512_set1_epi64(MASK as i64);
    let one = _mm512_set1_epi64(1);
    let mut c = [zero; NR];
    for r in 0..NR {
        c[r] = _mm512_srli_epi64::<52>(v[r]);
    }
    let mut s = [zero; NR];
    let mut kg = [0u8; W];
    let mut kp = [0u8; W];
    for r in 0..NR {
        let below = if r > 0 { c[r - 1] } else { zero };
        s[r] = _mm512_add_epi64(
            _mm512_and_si512(v[r], mask),
            _mm512_alignr_epi64::<6>(c[r], below),
        );
        kg[r] = _mm512_cmpgt_epu64_mask(s[r], mask);
        kp[r] = _mm512_cmpeq_epu64_mask(s[r], mask);
    }
    // The lane bits as one number (8 per register), built as a serial chain
    // from the top register down (a plain OR of shifted masks gets turned into
    // a slow vector reduction by the compiler).
    let cin: u128 = if NR <= 8 {
        let (mut g, mut p) = (0u64, 0u64);
        for r in (0..NR).rev() {
            g = gpr((g << 8) | kg[r] as u64);
            p = gpr((p << 8) | kp[r] as u64);
        }
        const EVEN: u64 = 0x5555_5555_5555_5555;
        const ODD: u64 = EVEN << 1;
        let (pp, pq) = (p | ODD, p | EVEN);
        let cin_p = gpr((((g & EVEN) << 2).wrapping_add(pp) ^ pp) & EVEN);
        let cin_q = gpr((((g & ODD) << 2).wrapping_add(pq) ^ pq) & ODD);
        (cin_p | cin_q) as u128
    } else {
        // Two words: registers 0..8 and 8..NR, the addition carried by hand.
        let (mut g0, mut p0, mut g1, mut p1) = (0u64, 0u64, 0u64, 0u64);
        for r in (0..8).rev() {
            g0 = gpr((g0 << 8) | kg[r] as u64);
            p0 = gpr((p0 << 8) | kp[r] as u64);
        }
        for r in (8..NR).rev() {
            g1 = gpr((g1 << 8) | kg[r] as u64);
            p1 = gpr((p1 << 8) | kp[r] as u64);
        }
        const EVEN: u64 = 0x5555_5555_5555_5555;
        let half = |m: u64| {
            let (pp0, pp1) = (p0 | !m, p1 | !m);
            let (x0, x1) = ((g0 & m) << 2, ((g1 & m) << 2) | ((g0 & m) >> 62));
            let (s0, carry) = x0.overflowing_add(pp0);
            let s1 = x1.wrapping_add(pp1).wrapping_add(carry as u64);
            (((s0 ^ pp0) & m) as u128) | ((((s1 ^ pp1) & m) as u128) << 64)
        };
        half(EVEN) | half(EVEN << 1)
    };
    for r in 0..NR {
        let k = (cin >> (8 * r)) as u8;
        let z = _mm512_and_si512(_mm512_mask_add_epi64(s[r], k, s[r], one), mask);
        // SAFETY: the row is 64 bytes inside a 64-byte aligned `Lanes`.
        unsafe { _mm512_store_si512(out.0[r].as_mut_ptr().cast(), z) };
    }
}

/// `out = a + b` digit by digit, carry-normalised (constant time). For two
/// almost-Montgomery outputs (each below 2^(52 d) in d digits) whose sum
/// stays below 2^(52 d).
///
/// # Safety
/// Call only where AVX-512F is available.
#[target_feature(enable = "avx512f")]
pub(super) fn add_dual<const NR: usize>(out: &mut Lanes<NR>, a: &Lanes<NR>, b: &Lanes<NR>) {
    let zero = _mm512_setzero_si512();
    let mut v = [zero; NR];
    for r in 0..NR {
        v[r] = _mm512_add_epi64(ld!(&a.0[r]), ld!(&b.0[r]));
    }
    normalize(out, &v);
}
