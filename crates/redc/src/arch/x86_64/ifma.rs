//! Radix-2^52 almost-Montgomery multiplication, dedicated squaring and the
//! dual (CRT) fixed-window exponentiation on AVX-512 IFMA, 512-bit registers.
//!
//! # Layout: p and q interleaved lane by lane
//!
//! Both CRT halves run in the same registers: lane 2j of the flat vector holds
//! digit j of the p operand and lane 2j + 1 digit j of the q operand, so a zmm
//! register holds four digit positions of each (register r: positions
//! 4r..4r+3), and 2 x 20 digits fill 5 registers exactly. Broadcasting "digit
//! i of b" is one 128-bit broadcast of the pair (b_p[i], b_q[i]); shifting the
//! accumulator down one digit is one VALIGNQ by two lanes per register. Every
//! instruction serves both halves, so the two independent dependency chains of
//! the CRT exponentiation are interleaved at the finest grain. A single
//! exponentiation uses the same kernels with both halves equal.
//!
//! # Multiplication: operand scanning, quotient computed in the vector unit
//!
//! Step i (i = 0..d) works in the frame "position k = digit i + k" and adds
//!
//! ```text
//! W = lo(A b_i) + hi(A b_{i-1})            (independent of the quotient chain)
//! X = acc + W + hi(N y_{i-1})              (the high halves of the previous step, now aligned)
//! y_i = lo(X_0 k0)  (mod 2^52: IFMA reads only the low 52 bits of X_0, so no masking)
//! T = X + lo(N y_i)                        (position 0 of T is 0 mod 2^52)
//! acc = (T >> one digit) + (T_0 >> 52)     (VALIGNQ by 2 lanes; the carry of position 0)
//! ```
//!
//! and a last half step adds hi(A b_{d-1}) + hi(N y_{d-1}). The quotient chain
//! per step is IFMA (hi N y) -> add -> IFMA (y) -> broadcast -> IFMA (lo N y) ->
//! shift/carry: about 14 cycles, below the 4 NR + 1 IFMA issue cycles of a step
//! (21 for NR = 5), so the kernel is bound by multiplier throughput; no
//! accumulator chains more than two IFMAs per step (W's two are off the chain).
//!
//! # Lane bound (no overflow of the 64-bit lanes)
//!
//! Every lane starts at 0. In one step a position receives at most lo(a b) +
//! hi(a b) + lo(n y) + hi(n y) < 4 * 2^52, in the squaring at most 2 (lo + hi)
//! of the doubled off-diagonal part plus lo + hi of the diagonal (itself at most
//! lo + hi, the doubled and the diagonal terms never both at the same position
//! and step) plus lo(n y) + hi(n y) < 6 * 2^52, and at most 2^8 from a
//! position-0 carry. A position is live for at most d + 1 steps, so a lane stays
//! below (6 (d + 1) + 1) 2^52 <= 247 * 2^52 < 2^60 for d <= 40: no lane
//! overflows, and the carry of position 0 (the lane >> 52) is below 2^8.
//!
//! # Almost-Montgomery bound
//!
//! The result is (a b + Y m) / R with Y < R = 2^(52 d); for a, b < 2m and
//! 4m < R it is below 2m (proof in `arch::portable52`), so it fits d digits
//! and outputs are valid inputs. d = ceil((bits + 2) / 52) guarantees 4m < R.
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

// The AVX-512 intrinsics are stable since Rust 1.89; the workspace declares
// rust-version 1.85 (not ours to change), and this module is only reached on
// the project's toolchain (1.95). Raising rust-version to 1.89 is the real fix.
#![allow(clippy::incompatible_msrv)]
// Register arrays indexed by a constant-bound counter unroll into registers.
#![allow(clippy::needless_range_loop)]

use core::arch::x86_64::*;

use zeroize::Zeroize;

use crate::arch::portable52::{self, MASK, Modulus52, WINDOW};

/// The largest register count per operand: d <= 40 digits (moduli up to 2078 bits).
pub const MAX_NR: usize = 10;

/// A dual operand: register r, lane 2k + h = digit 4r + k of half h (0 = p, 1 = q).
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug)]
pub struct Lanes<const NR: usize>(pub [[u64; 8]; NR]);

impl<const NR: usize> Lanes<NR> {
    /// All zero.
    pub const ZERO: Self = Lanes([[0; 8]; NR]);

    /// Interleave the digit vectors of the two halves (each at most 4 NR digits).
    pub fn interleave(p: &[u64], q: &[u64]) -> Self {
        assert!(p.len() <= 4 * NR && q.len() <= 4 * NR);
        let mut out = Self::ZERO;
        for (j, &x) in p.iter().enumerate() {
            out.0[j / 4][2 * (j % 4)] = x;
        }
        for (j, &x) in q.iter().enumerate() {
            out.0[j / 4][2 * (j % 4) + 1] = x;
        }
        out
    }

    /// The first `d` digits of half `h` (0 = p, 1 = q).
    pub fn half(&self, h: usize, d: usize) -> Vec<u64> {
        (0..d).map(|j| self.0[j / 4][2 * (j % 4) + h]).collect()
    }
}

impl<const NR: usize> Zeroize for Lanes<NR> {
    fn zeroize(&mut self) {
        for r in self.0.iter_mut() {
            r.zeroize();
        }
    }
}

/// Two public moduli of the same digit count, interleaved.
#[derive(Clone, Debug)]
pub struct DualMod<const NR: usize> {
    /// The digits of both moduli.
    pub n: Lanes<NR>,
    /// (k0_p, k0_q) repeated: -n^-1 mod 2^52 per half.
    pub k0: Lanes<1>,
    /// Digit count d (the number of steps; R = 2^(52 d)).
    pub d: usize,
}

impl<const NR: usize> DualMod<NR> {
    /// Interleave two prepared moduli; they must have the same digit count d <= 4 NR.
    pub fn new(p: &Modulus52, q: &Modulus52) -> Self {
        assert!(p.d == q.d && p.d <= 4 * NR);
        let k = [p.k0, q.k0, p.k0, q.k0, p.k0, q.k0, p.k0, q.k0];
        DualMod {
            n: Lanes::interleave(&p.m, &q.m),
            k0: Lanes([k]),
            d: p.d,
        }
    }
}

macro_rules! ld {
    ($x:expr) => {{
        let p: &[u64; 8] = $x;
        // SAFETY: `p` is a reference to 64 bytes inside a 64-byte aligned `Lanes`
        // (each row of a `repr(align(64))` array of `[u64; 8]` is 64-aligned).
        unsafe { _mm512_load_si512(p.as_ptr().cast()) }
    }};
}

/// The pair (x_p[i], x_q[i]) broadcast to all four pairs of lanes.
macro_rules! bcast_digit {
    ($x:expr, $i:expr) => {{
        let row: &[u64; 8] = &$x.0[$i / 4];
        let pair = &row[2 * ($i % 4)..2 * ($i % 4) + 2];
        // SAFETY: `pair` is two in-bounds u64s; the load is unaligned-tolerant.
        unsafe { _mm512_broadcast_i32x4(_mm_loadu_si128(pair.as_ptr().cast())) }
    }};
}

/// Lane mask of the positions p in register r (lanes 2(p - 4r), +1) with p >= lim.
#[inline(always)]
fn mask_ge(r: usize, lim: isize) -> u8 {
    let sh = (lim - 4 * r as isize).clamp(0, 4) as u32;
    (0xffu16 << (2 * sh)) as u8
}

/// Lane mask of position p == pos in register r (zero if not in this register).
#[inline(always)]
fn mask_eq(r: usize, pos: isize) -> u8 {
    let k = pos - 4 * r as isize;
    if (0..4).contains(&k) { 0b11 << (2 * k) } else { 0 }
}

/// `out = amm(a, b)` (or `amm(a, a)` when `SQR`, dedicated squaring; `b` unread),
/// both halves at once. Preconditions (checked by callers): digits below 2^52,
/// values below 2m per half, `m.d <= 4 NR`, digits at positions >= d zero.
///
/// # Safety
/// Call only where AVX-512F and AVX-512IFMA are available (callers check
/// [`super::ifma_available`]); the function itself has no other hazard.
#[target_feature(enable = "avx512f,avx512ifma")]
pub fn amm_dual<const NR: usize, const SQR: bool>(
    out: &mut Lanes<NR>,
    a: &Lanes<NR>,
    b: &Lanes<NR>,
    m: &DualMod<NR>,
) {
    let d = m.d;
    assert!(d >= 1 && d <= 4 * NR);
    let zero = _mm512_setzero_si512();
    let k0 = ld!(&m.k0.0[0]);
    let src = if SQR { a } else { b };
    let mut acc = [zero; NR];
    let mut bprev = zero;
    let mut yprev = zero;
    let mut x = [zero; NR];
    let mut t = [zero; NR];
    for i in 0..=d {
        let last = i == d;
        let bi = if last { zero } else { bcast_digit!(src, i) };
        let ii = i as isize;
        for r in 0..NR {
            let ar = ld!(&a.0[r]);
            let w = if !SQR {
                let l = if last {
                    zero
                } else {
                    _mm512_madd52lo_epu64(zero, ar, bi)
                };
                _mm512_madd52hi_epu64(l, ar, bprev)
            } else if 4 * r as isize + 3 < ii - 1 {
                // The whole register lies below the diagonal: nothing of a^2 here.
                zero
            } else if 4 * r as isize > ii {
                // The whole register lies above the diagonal: off-diagonal only, doubled.
                let l = if last {
                    zero
                } else {
                    _mm512_madd52lo_epu64(zero, ar, bi)
                };
                let s = _mm512_madd52hi_epu64(l, ar, bprev);
                _mm512_add_epi64(s, s)
            } else {
                // Straddles the diagonal: lo(a_j a_i) for j >= i, hi(a_j a_{i-1}) for j >= i - 1,
                // doubled except the diagonal terms lo(a_i^2) (at i) and hi(a_{i-1}^2) (at i-1).
                let l = if last {
                    zero
                } else {
                    _mm512_maskz_madd52lo_epu64(mask_ge(r, ii), zero, ar, bi)
                };
                let h = _mm512_maskz_madd52hi_epu64(mask_ge(r, ii - 1), zero, ar, bprev);
                let e =
                    _mm512_mask_mov_epi64(_mm512_maskz_mov_epi64(mask_eq(r, ii), l), mask_eq(r, ii - 1), h);
                let s = _mm512_add_epi64(l, h);
                _mm512_sub_epi64(_mm512_add_epi64(s, s), e)
            };
            let v = _mm512_madd52hi_epu64(w, ld!(&m.n.0[r]), yprev);
            x[r] = _mm512_add_epi64(acc[r], v);
        }
        if last {
            break;
        }
        let y = _mm512_madd52lo_epu64(zero, x[0], k0);
        let y = _mm512_shuffle_i64x2::<0>(y, y);
        for r in 0..NR {
            t[r] = _mm512_madd52lo_epu64(x[r], ld!(&m.n.0[r]), y);
        }
        let carry = _mm512_maskz_srli_epi64::<52>(0b11, t[0]);
        for r in 0..NR {
            let hi = if r + 1 < NR { t[r + 1] } else { zero };
            acc[r] = _mm512_alignr_epi64::<2>(hi, t[r]);
        }
        acc[0] = _mm512_add_epi64(acc[0], carry);
        bprev = bi;
        yprev = y;
    }
    normalize(out, &x);
}

/// Carry-normalise the lanes of `v` (each below 2^60, value below 2^(52 d)) to
/// 52-bit digits and store them. Constant time (see the module comment).
#[target_feature(enable = "avx512f")]
fn normalize<const NR: usize>(out: &mut Lanes<NR>, v: &[__m512i; NR]) {
    let zero = _mm512_setzero_si512();
    let mask = _mm512_set1_epi64(MASK as i64);
    let one = _mm512_set1_epi64(1);
    let mut c = [zero; NR];
    for r in 0..NR {
        c[r] = _mm512_srli_epi64::<52>(v[r]);
    }
    let mut s = [zero; NR];
    let mut g: u128 = 0;
    let mut p: u128 = 0;
    for r in 0..NR {
        let below = if r > 0 { c[r - 1] } else { zero };
        s[r] = _mm512_add_epi64(
            _mm512_and_si512(v[r], mask),
            _mm512_alignr_epi64::<6>(c[r], below),
        );
        g |= (_mm512_cmpgt_epu64_mask(s[r], mask) as u128) << (8 * r);
        p |= (_mm512_cmpeq_epu64_mask(s[r], mask) as u128) << (8 * r);
    }
    const EVEN: u128 = 0x5555_5555_5555_5555_5555_5555_5555_5555;
    const ODD: u128 = EVEN << 1;
    let pp = p | ODD;
    let cin_p = (((g & EVEN) << 2).wrapping_add(pp) ^ pp) & EVEN;
    let pq = p | EVEN;
    let cin_q = (((g & ODD) << 2).wrapping_add(pq) ^ pq) & ODD;
    let cin = cin_p | cin_q;
    for r in 0..NR {
        let k = (cin >> (8 * r)) as u8;
        let z = _mm512_and_si512(_mm512_mask_add_epi64(s[r], k, s[r], one), mask);
        // SAFETY: the row is 64 bytes inside a 64-byte aligned `Lanes`.
        unsafe { _mm512_store_si512(out.0[r].as_mut_ptr().cast(), z) };
    }
}

/// Constant-time table read: every entry is loaded; lanes of the p half keep
/// entry `wp`, lanes of the q half entry `wq` (masked blends, no secret index).
#[target_feature(enable = "avx512f")]
fn gather<const NR: usize>(out: &mut Lanes<NR>, table: &[Lanes<NR>], wp: u64, wq: u64) {
    let idx = _mm512_set_epi64(
        wq as i64, wp as i64, wq as i64, wp as i64, wq as i64, wp as i64, wq as i64, wp as i64,
    );
    let zero = _mm512_setzero_si512();
    let mut acc = [zero; NR];
    let mut kv = zero;
    let one = _mm512_set1_epi64(1);
    for entry in table {
        let k = _mm512_cmpeq_epu64_mask(idx, kv);
        for r in 0..NR {
            acc[r] = _mm512_mask_mov_epi64(acc[r], k, ld!(&entry.0[r]));
        }
        kv = _mm512_add_epi64(kv, one);
    }
    for r in 0..NR {
        // SAFETY: the row is 64 bytes inside a 64-byte aligned `Lanes`.
        unsafe { _mm512_store_si512(out.0[r].as_mut_ptr().cast(), acc[r]) };
    }
}

/// The dual fixed-window exponentiation: returns (base_p^ep R^-1 ... ) i.e. the
/// Montgomery-domain result multiplied by 1, per half at most m (not yet fully
/// reduced). `base` and `rr` are interleaved digits; exponents are u64 limbs
/// whose lengths are public (the shorter one is zero-extended).
///
/// # Safety
/// Call only where AVX-512F and AVX-512IFMA are available.
#[target_feature(enable = "avx512f,avx512ifma")]
pub fn pow_dual<const NR: usize>(
    m: &DualMod<NR>,
    base: &Lanes<NR>,
    rr: &Lanes<NR>,
    ep: &[u64],
    eq: &[u64],
) -> Lanes<NR> {
    let mut one = Lanes::<NR>::ZERO;
    one.0[0][0] = 1;
    one.0[0][1] = 1;
    let mut table = vec![Lanes::<NR>::ZERO; 1 << WINDOW];
    amm_dual::<NR, false>(&mut table[0], rr, &one, m);
    amm_dual::<NR, false>(&mut table[1], base, rr, m);
    for k in 2..(1 << WINDOW) {
        let mut x = Lanes::<NR>::ZERO;
        if k % 2 == 0 {
            amm_dual::<NR, true>(&mut x, &table[k / 2], &table[k / 2], m);
        } else {
            amm_dual::<NR, false>(&mut x, &table[k - 1], &table[1], m);
        }
        table[k] = x;
    }
    let nw = portable52::windows_for_limbs(ep.len().max(eq.len()));
    let mut x = Lanes::<NR>::ZERO;
    let mut y = Lanes::<NR>::ZERO;
    let mut g = Lanes::<NR>::ZERO;
    let top = (nw - 1) * WINDOW;
    gather(
        &mut x,
        &table,
        portable52::window(ep, top) as u64,
        portable52::window(eq, top) as u64,
    );
    for w in (0..nw - 1).rev() {
        for _ in 0..WINDOW / 2 {
            amm_dual::<NR, true>(&mut y, &x, &x, m);
            amm_dual::<NR, true>(&mut x, &y, &y, m);
        }
        amm_dual::<NR, true>(&mut y, &x, &x, m);
        let pos = w * WINDOW;
        gather(
            &mut g,
            &table,
            portable52::window(ep, pos) as u64,
            portable52::window(eq, pos) as u64,
        );
        amm_dual::<NR, false>(&mut x, &y, &g, m);
    }
    amm_dual::<NR, false>(&mut y, &x, &one, m);
    for e in table.iter_mut() {
        e.zeroize();
    }
    x.zeroize();
    g.zeroize();
    y
}
