//! Radix-2^52 almost-Montgomery multiplication for ONE modulus on AVX-512
//! IFMA, eight digits per 512-bit register, and the exponentiations built on
//! it: to a public exponent (RSA verification and encryption: the modulus
//! and the exponent are public, the base may be secret) and, in `window`,
//! to a secret one (CRT primes too wide for the dual kernel).
//!
//! The dual kernel ([`super`]) spends half its lanes on a second
//! modulus; for a single modulus it would run both halves equal, doing every
//! product twice and holding at most 40 digits. Here lane k of register r is
//! digit 8r + k of the one operand: half the IFMAs of the dual kernel at the
//! same size. Register counts 1..=10 (up to 80 digits: 4096-bit moduli),
//! then 16, 20 and 40 (up to 320 digits: 16384-bit moduli); the register
//! window described below runs up to 6 registers, and `wide` reorders the
//! same product for 7 registers and more (`WIDE_FROM_NR`).
//!
//! Papers: Zhao, Wang, Lu and Dai, "Hierarchical Optimizations for High
//! Speed Implementation of Modular Exponentiation in ASIC" (002), Algorithm 1
//! (high-radix Montgomery with inputs below 2M and no final subtraction);
//! Shand and Vuillemin, "Fast Implementations of RSA Cryptography" (003),
//! section 5 (Hensel's odd division = Montgomery, the 2M bound).
//!
//! # Schedule (as the dual kernel's, with one lane per digit)
//!
//! d = 8 NR steps. Step i = 8g + s adds a_j b_i and n_j y_i at positions i + j
//! (lo halves) and i + j + 1 (hi halves) into a window of NR + 1 accumulator
//! registers that does not move: the operands do. `Shifted` holds an operand
//! shifted up by 0..=8 digits (shifts 0 and 8 of `a` are read in place), so
//! a step is two IFMAs into `wa[r]` (a b) and two into `wn[r]` (n y) per
//! register, and no register chains more than two IFMAs per step. Every 8
//! steps the window slides one register.
//!
//! The quotient chain keeps position i in full, biased, broadcast to all
//! lanes: X_i = x0_i + 2^52 - 1. Then y_i = lo(X_i k0) + k0 (X_i + 1 = x0_i mod
//! 2^52; IFMA reads only y's low 52 bits), the carry out of position i after
//! adding lo(n0 y_i) is X_i >> 52 (x0 = H 2^52 + L and L + lo(n0 y) is 0 or
//! 2^52, the latter exactly when L != 0), and
//!
//! ```text
//! X_{i+1} = bcast(position i+1 of wa + wn) + lo(a0 b_{i+1}) + lo(n1 y_i) + hi(n0 y_i) + (X_i >> 52)
//! ```
//!
//! where the bias comes from `wn`, whose every position starts at 2^52 - 1
//! (removed from the result positions at the end).
//!
//! In the register window (up to 6 registers, where the groups are written
//! out), each step's N part is issued after the next step's chain, as the dual
//! kernel's squaring does: the bracket of X_{i+1} then takes y_{i-1}'s two
//! terms at position i + 1, lo(n2 y_{i-1}) + hi(n1 y_{i-1}), from two IFMAs
//! of its own, instead of reading them from the window after that N part's
//! IFMAs into it. The N part later adds the same two terms into the
//! window at position i + 1, which the chain has finished: for i + 1 < d
//! the position is dropped, and at the last step (i + 1 = d) the chain's
//! value is not used (only its carry), so position d counts them once.
//!
//! # Dedicated squaring
//!
//! For a^2 (`sqr_with`), step i adds only a_j a_i with j >= i, as the dual
//! kernel's squaring does: the off-diagonal terms (j > i) into `wa`, which
//! is doubled wherever it is read (the chain's bracket and the result), the
//! diagonal lo/hi(a_i^2) into `wn`. Lane k of the lo row of register r
//! holds j = 8r + k - S, so j > i for k > e = 8 (g - r) + 2S (k > e + 1 for
//! the hi row): one register per half is masked, those below it are
//! skipped. A square's A part adds nothing at position i + 1 in step
//! i + 1 (its terms there have j >= i + 1 > 0), so the chain's bracket
//! needs no lo(a0 b_{i+1}). Bit for bit the product a a (same Y, same
//! value); `pow_public` squares with it.
//!
//! # Bounds
//!
//! Lanes: a position receives per step at most lo + hi of one a b product and
//! of one n y product (< 4 * 2^52), for at most d + 1 steps, plus the bias
//! and one carry below 2^8: below (4 (d + 1) + 2) 2^52 <= 326 * 2^52 < 2^61
//! for d <= 80. In a square, `wa` doubled gives at most 4 * 2^52 a step and
//! each position one diagonal half: below (6 (d + 1) + 4) 2^52 <= 490 *
//! 2^52 < 2^61. No lane overflows.
//!
//! Almost-Montgomery: the result is (a b + Y m) / R with Y < R = 2^(52 d);
//! for a, b < 2m and 4m < R it is below 2m (proof in `arch::portable52`), so
//! outputs are valid inputs. d is the least multiple of 8 with 4m < R.
//!
//! # Normalisation (constant time)
//!
//! The lanes are split into digit + carry; the carries (< 2^9) move up one
//! lane, leaving digits at most 2^52 - 1 + 2^9. The remaining carries are
//! single bits: G = (digit > 2^52 - 1) generates, P = (digit == 2^52 - 1)
//! propagates, and the carry-in of every lane at once is ((G << 1) + P) ^ P
//! on a u128 of lane bits (8 NR <= 80 bits). No branch or index depends on
//! the values.
//!
//! Secrets: the base and every intermediate (the fault check and blinding
//! exponentiate secret values to the public exponent). In `pow_public` the
//! modulus and the exponent are public: the exponent's bits choose products
//! (binary method). `window` exponentiates to a secret exponent modulo a
//! secret prime (CRT primes wider than the dual kernel's 40 digits): the
//! kernel and the tables' setup ([`SingleMod::boxed`]) touch the modulus's
//! digits at fixed positions only, and [`SingleMod`] wipes them on drop.

// Register arrays indexed by a constant-bound counter unroll into registers.
#![allow(clippy::needless_range_loop)]

use core::arch::x86_64::*;

use zeroize::Zeroize;

use crate::arch::portable52::{MASK, Modulus52};
use crate::arch::x86_64::cpu::Ifma;

mod window;

/// The largest register count of the register-window form: d <= 80 digits
/// (moduli up to 4158 bits). Wider moduli take [`WIDE_NR`]'s counts.
pub const MAX_NR: usize = 10;

/// From this register count on, the product (and the square) runs the wide
/// form's schedule ([`wide`]: the quotient chain first, then each register
/// held across its group's eight steps) rather than the register window,
/// which spills there; the wide form measured faster from 7 registers
/// (moduli from 2495 bits: RSA-3072 and -4096 verification, RSA-6144's and
/// RSA-8192's primes) and slower at 6 (docs/PERFORMANCE.md, "IFMA
/// single-modulus kernel: the wide form from 7 registers").
const WIDE_FROM_NR: usize = 7;

/// The register window's register counts (1 to 6) run their groups written
/// out, not in a loop, so that the window slides by register renaming
/// rather than one register move per window register per group (see the
/// dual kernel's `STRAIGHT_MAX_NR`; docs/PERFORMANCE.md, "IFMA
/// single-modulus kernel: groups written out up to 6 registers"), with its
/// dedicated squaring ("dedicated squaring up to 6 registers").
const WINDOW_MAX_NR: usize = WIDE_FROM_NR - 1;

/// Window slots: NR + 1 accumulator registers (one spare keeps the slide in bounds).
const W: usize = MAX_NR + 2;

/// The radix-2^52 form of an odd `n >= 3` (public or secret) for these
/// kernels: d = 8 NR digits, NR the least register count with 4n < R among
/// 1..=`MAX_NR` and [`WIDE_NR`]; None above the widest (16638 bits). Time
/// depends on n's size only.
pub fn modulus(n: &[u64]) -> Option<Modulus52> {
    let md = Modulus52::with_digit_multiple(n, 8)?;
    let nr = md.d / 8;
    if nr <= MAX_NR {
        return Some(md);
    }
    let wide = WIDE_NR.iter().find(|&&w| w >= nr)?;
    Modulus52::with_digit_multiple(n, 8 * wide)
}

/// An operand: register r, lane k = digit 8r + k.
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug)]
pub struct Digits<const NR: usize>(pub [[u64; 8]; NR]);

impl<const NR: usize> Digits<NR> {
    /// All zero.
    pub const ZERO: Self = Digits([[0; 8]; NR]);

    /// From at most 8 NR digits.
    pub fn from_slice(x: &[u64]) -> Self {
        assert!(x.len() <= 8 * NR);
        let mut out = Self::ZERO;
        for (j, &v) in x.iter().enumerate() {
            out.0[j / 8][j % 8] = v;
        }
        out
    }

    /// The first `d` digits.
    pub fn to_vec(&self, d: usize) -> Vec<u64> {
        (0..d).map(|j| self.0[j / 8][j % 8]).collect()
    }
}

impl<const NR: usize> Zeroize for Digits<NR> {
    fn zeroize(&mut self) {
        for r in self.0.iter_mut() {
            r.zeroize();
        }
    }
}

/// An operand shifted up by s = 0..=8 digits: `v[s][r]` (r < NR) and
/// `top[s]` (r = NR) hold positions 8r..8r+7 of (x << 52 s).
#[repr(C, align(64))]
pub struct Shifted<const NR: usize> {
    v: [[[u64; 8]; NR]; 9],
    top: [[u64; 8]; 9],
}

impl<const NR: usize> Shifted<NR> {
    /// Fill zeroed rows with the shifted copies of the modulus `x`, in
    /// place, with scalar code (positions only: constant time in the value).
    fn fill(&mut self, x: &Digits<NR>) {
        for s in 0..9 {
            for j in 0..8 * NR {
                let pos = j + s;
                let val = x.0[j / 8][j % 8];
                if pos / 8 < NR {
                    self.v[s][pos / 8][pos % 8] = val;
                } else {
                    self.top[s][pos % 8] = val;
                }
            }
        }
    }

    #[inline(always)]
    fn row(&self, s: usize, r: usize) -> &[u64; 8] {
        if r < NR { &self.v[s][r] } else { &self.top[s] }
    }
}

/// The rows of an operand `a` shifted up by 1..=7 digits, rebuilt by every
/// product (shift 0 is `a` and 8 is `a` one register up: read in place).
/// An exponentiation keeps one and wipes it once at the end, not per
/// product: every product overwrites every row before reading it.
#[repr(C, align(64))]
pub struct AScratch<const NR: usize> {
    v: [[[u64; 8]; NR]; 7],
    top: [[u64; 8]; 7],
    zero: [u64; 8],
}

impl<const NR: usize> AScratch<NR> {
    /// All zero.
    pub const ZERO: Self = AScratch {
        v: [[[0; 8]; NR]; 7],
        top: [[0; 8]; 7],
        zero: [0; 8],
    };
}

impl<const NR: usize> Zeroize for AScratch<NR> {
    fn zeroize(&mut self) {
        self.v.zeroize();
        self.top.zeroize();
    }
}

/// The operand `a` shifted up by 0..=8 digits, as the steps read it.
struct ShiftedA<'a, const NR: usize> {
    rows: &'a AScratch<NR>,
    a: &'a Digits<NR>,
}

impl<const NR: usize> ShiftedA<'_, NR> {
    #[inline(always)]
    fn row(&self, s: usize, r: usize) -> &[u64; 8] {
        match s {
            0 if r < NR => &self.a.0[r],
            0 => &self.rows.zero,
            8 if r == 0 => &self.rows.zero,
            8 => &self.a.0[r - 1],
            _ if r < NR => &self.rows.v[s - 1][r],
            _ => &self.rows.top[s - 1],
        }
    }
}

/// A modulus in the kernel's form: digits, shifted copies, k0, R^2. Its
/// value may be secret (a CRT prime): wiped on drop. Every field is a
/// whole number of 64-byte rows (k0 fills one), so the struct has no
/// padding: no byte of it escapes the wipe, whatever a copy into it
/// brought along.
pub struct SingleMod<const NR: usize> {
    n: Digits<NR>,
    nsh: Shifted<NR>,
    /// k0 = -n^-1 mod 2^52 in lane 0 (the rest zero).
    k0: [u64; 8],
    rr: Digits<NR>,
}

// No padding: n, nsh (nine shifts of NR + 1 rows), k0 and rr are all the bytes.
const _: () = assert!(size_of::<SingleMod<10>>() == 64 * (10 + 9 * 11 + 1 + 10));
const _: () = assert!(size_of::<SingleMod<20>>() == 64 * (20 + 9 * 21 + 1 + 20));
const _: () = assert!(size_of::<SingleMod<40>>() == 64 * (40 + 9 * 41 + 1 + 40));

impl<const NR: usize> Drop for SingleMod<NR> {
    fn drop(&mut self) {
        self.n.zeroize();
        self.nsh.v.zeroize();
        self.nsh.top.zeroize();
        self.k0.zeroize();
        self.rr.zeroize();
    }
}

impl<const NR: usize> SingleMod<NR> {
    /// From a prepared modulus of exactly d = 8 NR digits, NR up to
    /// `MAX_NR` or one of [`WIDE_NR`]: built in place on the heap (up to 29
    /// KiB at 40 registers), with no copy of the (possibly secret) modulus
    /// on the stack.
    pub fn boxed(m: &Modulus52) -> Box<Self> {
        assert!(m.d == 8 * NR && (NR <= MAX_NR || WIDE_NR.contains(&NR)));
        assert!(m.m.len() == m.d && m.rr.len() == m.d);
        // SAFETY: every field is an array of u64, for which all-zero bytes
        // are a valid value.
        let mut b: Box<Self> = unsafe { Box::<Self>::new_zeroed().assume_init() };
        let SingleMod { n, nsh, k0, rr } = &mut *b;
        for j in 0..m.d {
            n.0[j / 8][j % 8] = m.m[j];
            rr.0[j / 8][j % 8] = m.rr[j];
        }
        nsh.fill(n);
        k0[0] = m.k0;
        b
    }
}

/// Digit `i` of `x` (i < 8 NR, or zero past the end) broadcast to all lanes.
macro_rules! bcast {
    ($x:expr, $i:expr) => {{
        let i: usize = $i;
        let v = if i < 8 * $x.0.len() { $x.0[i / 8][i % 8] } else { 0 };
        _mm512_set1_epi64(v as i64)
    }};
}

// After `bcast!`, which it uses.
mod wide;

pub use wide::WIDE_NR;

/// The state of one product (see the module documentation).
struct State {
    wa: [__m512i; W],
    wn: [__m512i; W],
    a0: __m512i,
    x: __m512i,
    k0: __m512i,
    n0: __m512i,
    n1: __m512i,
    n2: __m512i,
    /// y of the previous step (zero before step 0): its N part is issued
    /// after this step's chain.
    y_prev: __m512i,
    bias: __m512i,
}

/// One step i = 8 g + S (S a literal, so every register index is static).
/// `$sqr`: the dedicated squaring (`$b` is `a`), whose A part adds only
/// a_j a_i with j >= i (module documentation, "Dedicated squaring").
/// Step i - 1's N part is issued after this chain (`$PS`, `$POFF`: that
/// part's step in its group and slot offset, for `n_part!`), not this
/// step's own N part in it (module documentation, "Schedule").
macro_rules! step {
    ($S:literal, $PS:literal, $POFF:literal, $g:expr, $st:ident, $ash:ident, $b:expr, $m:expr, $nr:expr, $sqr:expr) => {{
        const S: usize = $S;
        let i = 8 * $g + S;
        let bi = bcast!($b, i);
        if !$sqr {
            for_r!($nr, |r| {
                if !(S == 0 && r == $nr) {
                    $st.wa[r] = _mm512_madd52lo_epu64($st.wa[r], ld!($ash.row(S, r)), bi);
                }
                if !(S == 7 && r == 0) {
                    $st.wa[r] = _mm512_madd52hi_epu64($st.wa[r], ld!($ash.row(S + 1, r)), bi);
                }
            });
        } else {
            // Lane k of row (S, r) holds digit j = 8r + k - S (lo half, at
            // position i + j) and of row (S + 1, r) digit 8r + k - S - 1 (hi
            // half): j > i exactly for k > e (lo) and k > e + 1 (hi), e =
            // 8 (g - r) + 2S. Off-diagonal terms go to wa (doubled when read),
            // the diagonal a_i^2 (lane e, resp. e + 1) to wn; registers with
            // e > 7 lie wholly below the diagonal and are skipped.
            let thr = (8 * $g + 2 * S) as isize;
            for_r!($nr, |r| {
                let e = thr - 8 * r as isize;
                if S == 0 && r == $nr {
                    // Row (0, NR) is zero.
                } else if e < 0 {
                    $st.wa[r] = _mm512_madd52lo_epu64($st.wa[r], ld!($ash.row(S, r)), bi);
                } else if e <= 7 {
                    let row = ld!($ash.row(S, r));
                    if e < 7 {
                        $st.wa[r] = _mm512_mask_madd52lo_epu64($st.wa[r], above(e), row, bi);
                    }
                    $st.wn[r] = _mm512_mask_madd52lo_epu64($st.wn[r], 1 << e, row, bi);
                }
                // (Row (8, 0), zero, has e + 1 = 8 g + 15 > 7: never read.)
                let e = e + 1;
                if e < 0 {
                    $st.wa[r] = _mm512_madd52hi_epu64($st.wa[r], ld!($ash.row(S + 1, r)), bi);
                } else if e <= 7 {
                    let row = ld!($ash.row(S + 1, r));
                    if e < 7 {
                        $st.wa[r] = _mm512_mask_madd52hi_epu64($st.wa[r], above(e), row, bi);
                    }
                    $st.wn[r] = _mm512_mask_madd52hi_epu64($st.wn[r], 1 << e, row, bi);
                }
            });
        }
        let x = $st.x;
        let y = _mm512_madd52lo_epu64($st.k0, x, $st.k0);
        let c = _mm512_srli_epi64::<52>(x);
        // Position i + 1 as accumulated so far (a square's wa doubled),
        // broadcast from its lane.
        const SLOT: usize = (S + 1) / 8;
        const LANE: i64 = ((S + 1) % 8) as i64;
        let wa = if $sqr {
            _mm512_add_epi64($st.wa[SLOT], $st.wa[SLOT])
        } else {
            $st.wa[SLOT]
        };
        let reg = _mm512_add_epi64(wa, $st.wn[SLOT]);
        let zero = _mm512_setzero_si512();
        let mut rb = _mm512_permutexvar_epi64(_mm512_set1_epi64(LANE), reg);
        // Step i - 1's N part comes after this chain, so its two terms at
        // position i + 1, lo(n2 y_{i-1}) + hi(n1 y_{i-1}), come here from
        // IFMAs of their own, which wait on y_{i-1} only (module
        // documentation, "Schedule").
        let prev = _mm512_madd52hi_epu64(
            _mm512_madd52lo_epu64(zero, $st.n2, $st.y_prev),
            $st.n1,
            $st.y_prev,
        );
        rb = _mm512_add_epi64(rb, prev);
        // Step i + 1's A part at position i + 1: lo(a0 b_{i+1}) in a product;
        // none in a square (its terms there have j >= i + 1 > 0).
        if !$sqr && i + 1 < 8 * $nr {
            rb = _mm512_add_epi64(rb, _mm512_madd52lo_epu64(zero, $st.a0, bcast!($b, i + 1)));
        }
        $st.x = _mm512_add_epi64(
            _mm512_madd52lo_epu64(rb, $st.n1, y),
            _mm512_madd52hi_epu64(c, $st.n0, y),
        );
        if $g > 0 || S > 0 {
            // Step i - 1's N part: ($PS, $POFF) = (S - 1, 0), or for S = 0
            // the previous group's last step, (7, -1): one slot down since
            // the window slid. None before step 0.
            n_part!($PS, 7, $POFF, $st, $st.y_prev, $m, $nr);
        }
        $st.y_prev = y;
        // The last step's carry out (of position d - 1) goes to position d.
        $st.x = if i + 1 == 8 * $nr { c } else { $st.x };
    }};
}

/// The lanes above lane e (0 <= e < 7) of an eight-lane register.
#[inline(always)]
fn above(e: isize) -> __mmask8 {
    (0xFFu16 << (e + 1)) as u8
}

/// `out = amm(a, b)`: digits below 2^52, values below 2m, d = 8 NR steps.
///
/// # Safety
/// Call only where AVX-512F and AVX-512IFMA are available.
#[target_feature(enable = "avx512f,avx512ifma")]
fn amm<const NR: usize>(out: &mut Digits<NR>, a: &Digits<NR>, b: &Digits<NR>, m: &SingleMod<NR>) {
    let mut scratch = AScratch::ZERO;
    amm_with(out, a, b, m, &mut scratch);
    // `scratch` holds shifted copies of a possibly secret operand.
    scratch.zeroize();
}

/// [`amm`] with the caller's scratch rows, which it leaves holding shifted
/// copies of `a` (the caller wipes them when it is done with its secrets).
///
/// # Safety
/// Call only where AVX-512F and AVX-512IFMA are available.
#[target_feature(enable = "avx512f,avx512ifma")]
fn amm_with<const NR: usize>(
    out: &mut Digits<NR>,
    a: &Digits<NR>,
    b: &Digits<NR>,
    m: &SingleMod<NR>,
    scratch: &mut AScratch<NR>,
) {
    if NR >= WIDE_FROM_NR {
        wide::amm::<NR>(out, a, b, m, scratch);
    } else {
        amm_any::<NR, false>(out, a, b, m, scratch);
    }
}

/// `out = amm(a, a)`, with the caller's scratch rows as [`amm_with`]: the
/// dedicated squaring (module documentation) in the register window, the
/// wide form's product from [`WIDE_FROM_NR`] registers. Bit for bit
/// [`amm_with`]`(a, a)`.
///
/// # Safety
/// Call only where AVX-512F and AVX-512IFMA are available.
#[target_feature(enable = "avx512f,avx512ifma")]
fn sqr_with<const NR: usize>(
    out: &mut Digits<NR>,
    a: &Digits<NR>,
    m: &SingleMod<NR>,
    scratch: &mut AScratch<NR>,
) {
    if NR >= WIDE_FROM_NR {
        wide::amm::<NR>(out, a, a, m, scratch);
    } else {
        amm_any::<NR, true>(out, a, a, m, scratch);
    }
}

/// The rows of `a` shifted up by 1..=7 digits into `scratch` (`ShiftedA`).
#[target_feature(enable = "avx512f")]
fn fill_rows<const NR: usize>(a: &Digits<NR>, scratch: &mut AScratch<NR>) {
    let zero = _mm512_setzero_si512();
    let mut prev = zero;
    for r in 0..=NR {
        let cur = if r < NR { ld!(&a.0[r]) } else { zero };
        // Shift s: lanes move up s places, the top s lanes of `prev` entering below.
        let rows = [
            _mm512_alignr_epi64::<7>(cur, prev),
            _mm512_alignr_epi64::<6>(cur, prev),
            _mm512_alignr_epi64::<5>(cur, prev),
            _mm512_alignr_epi64::<4>(cur, prev),
            _mm512_alignr_epi64::<3>(cur, prev),
            _mm512_alignr_epi64::<2>(cur, prev),
            _mm512_alignr_epi64::<1>(cur, prev),
        ];
        for (s, v) in rows.into_iter().enumerate() {
            let dst = if r < NR {
                &mut scratch.v[s][r]
            } else {
                &mut scratch.top[s]
            };
            // SAFETY: `dst` is a 64-byte row of a 64-byte aligned `ShiftedA`.
            unsafe { _mm512_store_si512(dst.as_mut_ptr().cast(), v) };
        }
        prev = cur;
    }
}

/// The product (`SQR` false) or the dedicated squaring (`SQR` true, `b` =
/// `a`).
#[target_feature(enable = "avx512f,avx512ifma")]
fn amm_any<const NR: usize, const SQR: bool>(
    out: &mut Digits<NR>,
    a: &Digits<NR>,
    b: &Digits<NR>,
    m: &SingleMod<NR>,
    scratch: &mut AScratch<NR>,
) {
    // The wide form serves the larger counts (`amm_with`, `sqr_with`).
    assert!(NR <= WINDOW_MAX_NR);
    let zero = _mm512_setzero_si512();
    let bias = _mm512_set1_epi64(MASK as i64);
    fill_rows(a, scratch);
    let ash = ShiftedA { rows: scratch, a };
    let mut st = State {
        wa: [zero; W],
        wn: [bias; W],
        a0: bcast!(a, 0),
        x: zero,
        k0: _mm512_set1_epi64(m.k0[0] as i64),
        n0: bcast!(m.n, 0),
        n1: bcast!(m.n, 1),
        n2: bcast!(m.n, 2),
        y_prev: zero,
        bias,
    };
    st.x = _mm512_madd52lo_epu64(st.bias, st.a0, bcast!(b, 0));
    // One group of eight steps, then the window slides one register.
    macro_rules! group {
        ($g:expr) => {{
            let g: usize = $g;
            // Hide the loop invariance of the modulus rows from the optimiser: hoisted
            // out of the loop they are copied to the stack on every product (3.5 KiB at
            // 40 digits).
            let m = super::opaque(m, g);
            step!(0, 7, -1, g, st, ash, b, m, NR, SQR);
            step!(1, 0, 0, g, st, ash, b, m, NR, SQR);
            step!(2, 1, 0, g, st, ash, b, m, NR, SQR);
            step!(3, 2, 0, g, st, ash, b, m, NR, SQR);
            step!(4, 3, 0, g, st, ash, b, m, NR, SQR);
            step!(5, 4, 0, g, st, ash, b, m, NR, SQR);
            step!(6, 5, 0, g, st, ash, b, m, NR, SQR);
            step!(7, 6, 0, g, st, ash, b, m, NR, SQR);
            for r in 0..NR {
                st.wa[r] = st.wa[r + 1];
                st.wn[r] = st.wn[r + 1];
            }
            st.wa[NR] = zero;
            st.wn[NR] = st.bias;
        }};
    }
    // Written out: the slide is register renaming, not moves.
    macro_rules! straight {
        ($($g:literal)*) => {{
            $(
                if $g < NR {
                    group!($g);
                }
            )*
        }};
    }
    straight!(0 1 2 3 4 5);
    // The last step's N part (the window has slid past its group).
    let m_last = super::opaque(m, NR);
    n_part!(7, 7, -1, st, st.y_prev, m_last, NR);
    // Positions d..2d-1 without the bias, plus the carry out of position d - 1.
    let mut res = [zero; MAX_NR];
    for r in 0..NR {
        let wa = if SQR {
            _mm512_add_epi64(st.wa[r], st.wa[r])
        } else {
            st.wa[r]
        };
        res[r] = _mm512_sub_epi64(_mm512_add_epi64(wa, st.wn[r]), st.bias);
    }
    res[0] = _mm512_mask_add_epi64(res[0], 1, res[0], st.x);
    normalize(out, &res);
}

/// Carry-normalise lanes (each below 2^61, value below 2^(52 d)) to 52-bit
/// digits and store them. Constant time (see the module documentation).
#[target_feature(enable = "avx512f")]
fn normalize<const NR: usize>(out: &mut Digits<NR>, v: &[__m512i; MAX_NR]) {
    let zero = _mm512_setzero_si512();
    let mask = _mm512_set1_epi64(MASK as i64);
    let one = _mm512_set1_epi64(1);
    let mut s = [zero; MAX_NR];
    let (mut g, mut p) = (0u128, 0u128);
    let mut below = zero;
    for r in 0..NR {
        let c = _mm512_srli_epi64::<52>(v[r]);
        s[r] = _mm512_add_epi64(_mm512_and_si512(v[r], mask), _mm512_alignr_epi64::<7>(c, below));
        below = c;
        g |= (_mm512_cmpgt_epu64_mask(s[r], mask) as u128) << (8 * r);
        p |= (_mm512_cmpeq_epu64_mask(s[r], mask) as u128) << (8 * r);
    }
    let cin = ((g << 1).wrapping_add(p)) ^ p;
    for r in 0..NR {
        let k = (cin >> (8 * r)) as u8;
        let z = _mm512_and_si512(_mm512_mask_add_epi64(s[r], k, s[r], one), mask);
        // SAFETY: the row is 64 bytes inside a 64-byte aligned `Digits`.
        unsafe { _mm512_store_si512(out.0[r].as_mut_ptr().cast(), z) };
    }
}

/// The working values of [`pow_public`]: the scratch rows and four
/// operands (28 KiB at 40 registers).
#[repr(C)]
struct PublicWork<const NR: usize> {
    scratch: AScratch<NR>,
    one: Digits<NR>,
    bm: Digits<NR>,
    x: Digits<NR>,
    y: Digits<NR>,
}

/// `base^exp` for a PUBLIC exponent (left-to-right binary: variable time in
/// `exp` only, constant time in the base), out of the Montgomery domain but
/// not yet fully reduced (at most m). `base` below m, in digits. The
/// working values sit on the stack up to `MAX_NR` registers and on the heap
/// above, where they would make one frame larger than a small thread's or
/// an async fiber's stack should hold.
///
/// # Safety
/// Call only where AVX-512F and AVX-512IFMA are available.
#[target_feature(enable = "avx512f,avx512ifma")]
fn pow_public<const NR: usize>(m: &SingleMod<NR>, base: &Digits<NR>, exp: &[u64]) -> Digits<NR> {
    if NR > MAX_NR {
        // SAFETY: every field is an array of u64, for which all-zero bytes
        // are a valid value.
        let mut w: Box<PublicWork<NR>> = unsafe { Box::new_zeroed().assume_init() };
        pow_public_in(m, base, exp, &mut w)
    } else {
        let mut w = PublicWork {
            scratch: AScratch::ZERO,
            one: Digits::ZERO,
            bm: Digits::ZERO,
            x: Digits::ZERO,
            y: Digits::ZERO,
        };
        pow_public_in(m, base, exp, &mut w)
    }
}

/// [`pow_public`] in the given working values (all zero on entry); wipes
/// all but the result.
///
/// # Safety
/// Call only where AVX-512F and AVX-512IFMA are available.
#[target_feature(enable = "avx512f,avx512ifma")]
fn pow_public_in<const NR: usize>(
    m: &SingleMod<NR>,
    base: &Digits<NR>,
    exp: &[u64],
    w: &mut PublicWork<NR>,
) -> Digits<NR> {
    let PublicWork {
        scratch,
        one,
        bm,
        x,
        y,
    } = w;
    one.0[0][0] = 1;
    amm_with(bm, base, &m.rr, m, scratch);
    let bits = crate::limb::bit_len_vartime(exp);
    // The exponent's top bit (public) starts the accumulator at the base
    // itself: no product by R mod m, no squaring of one.
    if bits == 0 {
        amm_with(x, &m.rr, one, m, scratch); // R mod m: 1 in Montgomery form
    } else {
        *x = *bm;
    }
    for i in (0..bits.saturating_sub(1)).rev() {
        sqr_with(y, x, m, scratch);
        if (exp[i / 64] >> (i % 64)) & 1 == 1 {
            amm_with(x, y, bm, m, scratch);
        } else {
            *x = *y;
        }
    }
    amm_with(y, x, one, m, scratch);
    bm.zeroize();
    x.zeroize();
    scratch.zeroize();
    let out = *y;
    y.zeroize();
    out
}

/// The safe entries to the single-modulus kernels: each takes the [`Ifma`]
/// token, which exists only where the CPU has AVX-512F and AVX-512 IFMA
/// (with VL) and the mask does not hide them. Operand preconditions are
/// those of the kernel named (bounds, not memory safety).
impl Ifma {
    /// `out = amm(a, b)` (`amm`).
    #[inline(always)]
    pub fn single_amm<const NR: usize>(
        self,
        out: &mut Digits<NR>,
        a: &Digits<NR>,
        b: &Digits<NR>,
        m: &SingleMod<NR>,
    ) {
        // SAFETY: the token proves the CPU has AVX-512F and IFMA and the mask allows them.
        unsafe { amm::<NR>(out, a, b, m) }
    }

    /// `out = amm(a, b)` with the caller's scratch rows (`amm_with`).
    #[inline(always)]
    pub fn single_amm_with<const NR: usize>(
        self,
        out: &mut Digits<NR>,
        a: &Digits<NR>,
        b: &Digits<NR>,
        m: &SingleMod<NR>,
        scratch: &mut AScratch<NR>,
    ) {
        // SAFETY: the token proves the CPU has AVX-512F and IFMA and the mask allows them.
        unsafe { amm_with::<NR>(out, a, b, m, scratch) }
    }

    /// `out = amm(a, b)` by the wide form at any register count from 2 to
    /// 40 (`wide::amm`; bit for bit [`Ifma::single_amm_with`]), for the
    /// benchmark that chooses the register counts it serves.
    #[cfg(feature = "probes")]
    #[inline(always)]
    pub fn single_amm_wide_with<const NR: usize>(
        self,
        out: &mut Digits<NR>,
        a: &Digits<NR>,
        b: &Digits<NR>,
        m: &SingleMod<NR>,
        scratch: &mut AScratch<NR>,
    ) {
        assert!(NR >= 2);
        // SAFETY: the token proves the CPU has AVX-512F and IFMA and the mask allows them.
        unsafe { wide::amm::<NR>(out, a, b, m, scratch) }
    }

    /// `out = amm(a, a)` by the dedicated squaring (`sqr_with`).
    #[inline(always)]
    pub fn single_sqr_with<const NR: usize>(
        self,
        out: &mut Digits<NR>,
        a: &Digits<NR>,
        m: &SingleMod<NR>,
        scratch: &mut AScratch<NR>,
    ) {
        // SAFETY: the token proves the CPU has AVX-512F and IFMA and the mask allows them.
        unsafe { sqr_with::<NR>(out, a, m, scratch) }
    }

    /// `base^exp` for a public exponent (`pow_public`).
    #[inline(always)]
    pub fn single_pow_public<const NR: usize>(
        self,
        m: &SingleMod<NR>,
        base: &Digits<NR>,
        exp: &[u64],
    ) -> Digits<NR> {
        // SAFETY: the token proves the CPU has AVX-512F and IFMA and the mask allows them.
        unsafe { pow_public::<NR>(m, base, exp) }
    }
}
