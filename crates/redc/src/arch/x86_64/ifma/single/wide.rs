//! The single-modulus product from 7 registers up (`WIDE_FROM_NR`): the
//! register counts 7..=10 of [`super`] and this form's own 16, 20 and 40
//! (128, 160 and 320 digits: moduli up to 6654, 8318 and 16638 bits, i.e.
//! RSA-6144, RSA-8192 and RSA-15360/16384 moduli for verification, and
//! RSA-16384's primes), where the register window of [`super`] cannot stay
//! in registers.
//!
//! Papers: Zhao, Wang, Lu and Dai, "Hierarchical Optimizations for High
//! Speed Implementation of Modular Exponentiation in ASIC" (002), Algorithm 1
//! (high-radix almost-Montgomery, inputs below 2M, no final subtraction);
//! Koc, Acar and Kaliski, "Analyzing and Comparing Montgomery Multiplication
//! Algorithms", operand scanning.
//!
//! # Schedule: the chain first, then register by register
//!
//! The same operand scanning as [`super`] (the accumulator window fixed, the
//! operands shifted by 0..=8 digits, the window sliding one register per
//! group of eight steps), with one accumulator per register for both
//! parts (the bias 2^52 - 1 in every position from the start), reordered
//! per group:
//! 1. the quotient chain's eight steps, with the A and N parts into
//!    registers 0 and 1 only: position i + 1, which step i's chain reads,
//!    lies in them, and no other register feeds it;
//! 2. registers 2..=NR, each in turn held in a register across the
//!    group's eight steps (its A part and N part in two accumulators),
//!    with the eight b digits and quotients of step 1.
//!
//! Integer addition commutes, so every position receives exactly the terms
//! of [`super`]'s product: the result is bit for bit the same (the
//! differential tests compare it with the portable twin).
//!
//! # Bounds
//!
//! A position receives per step at most lo + hi of one a b product and of
//! one n y product (< 4 * 2^52), for at most d + 1 steps, plus the bias and
//! a carry below 2^11: below (4 (d + 1) + 2) 2^52 = 1286 * 2^52 < 2^63 for
//! d = 320. No lane overflows. After the carries (< 2^11) move up one lane,
//! a digit is at most 2^52 - 1 + 2^11, so the remaining carries are single
//! bits, resolved as in [`super`] over 8 NR <= 320 lane bits.
//!
//! Secrets: the operands, and the modulus where it is a CRT prime; every
//! loop bound and index is a public size.

use core::arch::x86_64::*;

use crate::arch::portable52::MASK;

use super::{AScratch, Digits, ShiftedA, SingleMod, fill_rows};

/// The register counts of this form: 16 (moduli of 4159 to 6654 bits), 20
/// (6655 to 8318 bits) and 40 (8319 to 16638 bits).
pub const WIDE_NR: [usize; 3] = [16, 20, 40];

/// Accumulator slots: NR + 1 registers for NR up to 40.
const WW: usize = 42;

/// Lane bits of the carry resolution: 8 NR <= 320 lanes in three u128 words.
const LANE_WORDS: usize = 3;

/// `out = amm(a, b)` for NR of [`WIDE_NR`]: digits below 2^52, values below
/// 2m, d = 8 NR steps; leaves `scratch` holding shifted copies of `a`.
///
/// # Safety
/// Call only where AVX-512F and AVX-512IFMA are available.
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn amm<const NR: usize>(
    out: &mut Digits<NR>,
    a: &Digits<NR>,
    b: &Digits<NR>,
    m: &SingleMod<NR>,
    scratch: &mut AScratch<NR>,
) {
    assert!(NR < WW);
    let zero = _mm512_setzero_si512();
    let bias = _mm512_set1_epi64(MASK as i64);
    fill_rows(a, scratch);
    let ash = ShiftedA { rows: scratch, a };
    let mut w = [bias; WW];
    let a0 = bcast!(a, 0);
    let k0 = _mm512_set1_epi64(m.k0[0] as i64);
    let n0 = bcast!(m.n, 0);
    let n1 = bcast!(m.n, 1);
    let mut x = _mm512_madd52lo_epu64(bias, a0, bcast!(b, 0));
    for g in 0..NR {
        // Hide the loop invariance of the modulus rows (see `amm_any`).
        let m = crate::arch::x86_64::ifma::opaque(m, g);
        let mut bi = [zero; 8];
        let mut yi = [zero; 8];
        // 1. The chain, with registers 0 and 1.
        let (mut w0, mut w1) = (w[0], w[1]);
        for s in 0..8 {
            let i = 8 * g + s;
            let b_i = bcast!(b, i);
            bi[s] = b_i;
            w0 = _mm512_madd52lo_epu64(w0, ld!(ash.row(s, 0)), b_i);
            if s != 7 {
                w0 = _mm512_madd52hi_epu64(w0, ld!(ash.row(s + 1, 0)), b_i);
            }
            w1 = _mm512_madd52lo_epu64(w1, ld!(ash.row(s, 1)), b_i);
            w1 = _mm512_madd52hi_epu64(w1, ld!(ash.row(s + 1, 1)), b_i);
            let y = _mm512_madd52lo_epu64(k0, x, k0);
            let c = _mm512_srli_epi64::<52>(x);
            // Position i + 1: lane s + 1 of register 0, or lane 0 of register 1.
            let (reg, lane) = if s < 7 { (w0, s as i64 + 1) } else { (w1, 0) };
            let mut rb = _mm512_permutexvar_epi64(_mm512_set1_epi64(lane), reg);
            if i + 1 < 8 * NR {
                rb = _mm512_add_epi64(rb, _mm512_madd52lo_epu64(zero, a0, bcast!(b, i + 1)));
            }
            x = _mm512_add_epi64(_mm512_madd52lo_epu64(rb, n1, y), _mm512_madd52hi_epu64(c, n0, y));
            w0 = _mm512_madd52lo_epu64(w0, ld!(m.nsh.row(s, 0)), y);
            if s != 7 {
                w0 = _mm512_madd52hi_epu64(w0, ld!(m.nsh.row(s + 1, 0)), y);
            }
            w1 = _mm512_madd52lo_epu64(w1, ld!(m.nsh.row(s, 1)), y);
            w1 = _mm512_madd52hi_epu64(w1, ld!(m.nsh.row(s + 1, 1)), y);
            yi[s] = y;
            // The last step's carry out (of position d - 1) goes to position d.
            if i + 1 == 8 * NR {
                x = c;
            }
        }
        w[0] = w0;
        w[1] = w1;
        // 2. Registers 2..=NR, one at a time across the eight steps.
        for r in 2..=NR {
            let mut wa = w[r];
            let mut wn = zero;
            for s in 0..8 {
                // Row (0, NR) is zero.
                if !(s == 0 && r == NR) {
                    wa = _mm512_madd52lo_epu64(wa, ld!(ash.row(s, r)), bi[s]);
                    wn = _mm512_madd52lo_epu64(wn, ld!(m.nsh.row(s, r)), yi[s]);
                }
                wa = _mm512_madd52hi_epu64(wa, ld!(ash.row(s + 1, r)), bi[s]);
                wn = _mm512_madd52hi_epu64(wn, ld!(m.nsh.row(s + 1, r)), yi[s]);
            }
            w[r] = _mm512_add_epi64(wa, wn);
        }
        // Slide the window one register.
        for r in 0..NR {
            w[r] = w[r + 1];
        }
        w[NR] = bias;
    }
    // Positions d..2d-1 without the bias, plus the carry out of position d - 1.
    let mut res = [zero; WW];
    for r in 0..NR {
        res[r] = _mm512_sub_epi64(w[r], bias);
    }
    res[0] = _mm512_mask_add_epi64(res[0], 1, res[0], x);
    normalize(out, &res);
}

/// Carry-normalise NR lanes-registers (each lane below 2^63, the value
/// below 2^(52 d)) to 52-bit digits and store them: the carries move up one
/// lane, then the single-bit carries resolve at once as generate/propagate
/// bits over 8 NR <= 320 lanes, held in [`LANE_WORDS`] u128 words: the
/// carry into each lane is ((g << 1) + p) ^ p. Constant time.
#[target_feature(enable = "avx512f")]
fn normalize<const NR: usize>(out: &mut Digits<NR>, v: &[__m512i; WW]) {
    let zero = _mm512_setzero_si512();
    let mask = _mm512_set1_epi64(MASK as i64);
    let one = _mm512_set1_epi64(1);
    let mut s = [zero; WW];
    // Lane bits: word k holds lanes 128k..128k + 127.
    let (mut g, mut p) = ([0u128; LANE_WORDS], [0u128; LANE_WORDS]);
    let mut below = zero;
    for r in 0..NR {
        let c = _mm512_srli_epi64::<52>(v[r]);
        s[r] = _mm512_add_epi64(_mm512_and_si512(v[r], mask), _mm512_alignr_epi64::<7>(c, below));
        below = c;
        let (word, at) = ((8 * r) / 128, (8 * r) % 128);
        g[word] |= (_mm512_cmpgt_epu64_mask(s[r], mask) as u128) << at;
        p[word] |= (_mm512_cmpeq_epu64_mask(s[r], mask) as u128) << at;
    }
    // cin = ((g << 1) + p) ^ p over 384 bits; the carry out of the top is 0
    // (the value is below 2^(52 d)).
    let mut cin = [0u128; LANE_WORDS];
    let (mut shifted_in, mut carry) = (0u128, false);
    for k in 0..LANE_WORDS {
        let g1 = (g[k] << 1) | shifted_in;
        shifted_in = g[k] >> 127;
        let (sum, c1) = g1.overflowing_add(p[k]);
        let (sum, c2) = sum.overflowing_add(carry as u128);
        carry = c1 | c2;
        cin[k] = sum ^ p[k];
    }
    for r in 0..NR {
        let (word, at) = ((8 * r) / 128, (8 * r) % 128);
        let k = (cin[word] >> at) as u8;
        let z = _mm512_and_si512(_mm512_mask_add_epi64(s[r], k, s[r], one), mask);
        // SAFETY: the row is 64 bytes inside a 64-byte aligned `Digits`.
        unsafe { _mm512_store_si512(out.0[r].as_mut_ptr().cast(), z) };
    }
}
