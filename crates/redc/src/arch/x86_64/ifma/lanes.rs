//! The dual kernel's data layout: `Lanes` (register r, lane 2k + h = digit
//! 4r + k of half h), `DualMod` (two moduli of one digit count, with their
//! shifted copies), the shifted copies of an operand (`Shifted`,
//! `ShiftedA`) that let the accumulator window stay put, and the macros
//! that read one digit pair (`bcast_digit!`, `bpair!`).
//!
//! Invariants: every row is a 64-byte aligned `[u64; 8]` (`ld!` relies on
//! it); digits are below 2^52. `DualMod` holds secret CRT primes and is
//! wiped on drop, padding included. Layout of the dual (CRT) Montgomery
//! product of Koc, Acar and Kaliski, "Analyzing and Comparing Montgomery
//! Multiplication Algorithms", operand scanning, two moduli interleaved.

use core::arch::x86_64::*;

use zeroize::Zeroize;

use crate::arch::portable52::Modulus52;

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

    /// The rows as one slice of 8 NR words.
    pub fn words(&self) -> &[u64] {
        self.0.as_flattened()
    }

    /// From 8 NR words, row by row (as [`Lanes::words`] gives them).
    pub fn from_words(w: &[u64]) -> Self {
        assert_eq!(w.len(), 8 * NR);
        let mut out = Self::ZERO;
        out.0.as_flattened_mut().copy_from_slice(w);
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

/// Two moduli of the same digit count, interleaved (wiped on drop: CRT primes
/// are secret).
pub struct DualMod<const NR: usize> {
    /// The digits of both moduli.
    pub n: Lanes<NR>,
    /// (k0_p, k0_q) repeated: -n^-1 mod 2^52 per half.
    pub k0: Lanes<1>,
    /// Digit count d = 4 NR (the number of steps; R = 2^(52 d)).
    pub d: usize,
    /// The moduli shifted by 0..=4 digit positions.
    pub nsh: Shifted<NR>,
}

impl<const NR: usize> DualMod<NR> {
    /// Interleave two prepared moduli; they must have the same digit count d = 4 NR.
    pub fn new(p: &Modulus52, q: &Modulus52) -> Self {
        assert!(p.d == q.d && p.d == 4 * NR);
        let k = [p.k0, q.k0, p.k0, q.k0, p.k0, q.k0, p.k0, q.k0];
        let n = Lanes::interleave(&p.m, &q.m);
        DualMod {
            n,
            k0: Lanes([k]),
            d: p.d,
            nsh: Shifted::new(&n),
        }
    }
}

impl<const NR: usize> Drop for DualMod<NR> {
    fn drop(&mut self) {
        // Every byte, the padding included: the usize `d` among 64-byte
        // aligned rows leaves 56 bytes of padding, which are copied with the
        // struct when it moves (into a Box, say) and can hold stale digits of
        // a prime from the stack.
        // SAFETY: `self` is exclusively borrowed and about to be dropped; its
        // fields are plain integer arrays and a usize (no references, no heap,
        // no Drop of their own), for which all-zero bytes are valid.
        unsafe { zeroize::zeroize_flat_type(self as *mut Self) };
    }
}

/// The pair (x_p[i], x_q[i]) broadcast to all four pairs of lanes.
macro_rules! bcast_digit {
    ($x:expr, $i:expr) => {{
        // `get`: in the squaring's per-group copies the index is a constant that
        // may lie past the end in arms that never run.
        let row: &[u64; 8] = $x.0.get($i / 4).unwrap_or(&[0; 8]);
        let pair = &row[2 * ($i % 4)..2 * ($i % 4) + 2];
        // SAFETY: `pair` is two in-bounds u64s; the load is unaligned-tolerant.
        unsafe { _mm512_broadcast_i32x4(_mm_loadu_si128(pair.as_ptr().cast())) }
    }};
}

/// The pair (x_p[i], x_q[i]) in an xmm register (the chain's form on CPUs
/// with double-pumped zmm; `chain`'s module comment, "The quotient chain in xmm").
macro_rules! bpair {
    ($x:expr, $i:expr) => {{
        let row: &[u64; 8] = $x.0.get($i / 4).unwrap_or(&[0; 8]);
        let pair = &row[2 * ($i % 4)..2 * ($i % 4) + 2];
        // SAFETY: `pair` is two in-bounds u64s; the load is unaligned-tolerant.
        unsafe { _mm_loadu_si128(pair.as_ptr().cast()) }
    }};
}

/// An operand shifted up by s = 0..=4 digit positions, for s in 0..5:
/// `v[s][r]` (r < NR) and `top[s]` (r = NR) hold positions 4r..4r+3 of
/// (operand << 52 s), so that the product of digit j with b_i lands in the
/// accumulator register of its position without shifting the accumulator.
#[repr(C, align(64))]
#[derive(Clone, Copy)]
pub struct Shifted<const NR: usize> {
    v: [[[u64; 8]; NR]; 5],
    top: [[u64; 8]; 5],
}

impl<const NR: usize> Shifted<NR> {
    /// The shifted copies of `x`, built with scalar code (for the public modulus).
    pub fn new(x: &Lanes<NR>) -> Self {
        let mut out = Shifted {
            v: [[[0; 8]; NR]; 5],
            top: [[0; 8]; 5],
        };
        for s in 0..5 {
            for j in 0..4 * NR {
                let pos = j + s;
                for h in 0..2 {
                    let val = x.0[j / 4][2 * (j % 4) + h];
                    let lane = 2 * (pos % 4) + h;
                    if pos / 4 < NR {
                        out.v[s][pos / 4][lane] = val;
                    } else {
                        out.top[s][lane] = val;
                    }
                }
            }
        }
        out
    }

    #[inline(always)]
    pub(super) fn row(&self, s: usize, r: usize) -> &[u64; 8] {
        if r < NR { &self.v[s][r] } else { &self.top[s] }
    }
}

/// The operand `a` shifted up by s = 0..=4 digit positions, as [`Shifted`]
/// reads it, built per product. Only s = 1, 2, 3 are copies: s = 0 is `a`
/// itself and s = 4 is `a` one register up, so both are read in place (12 of
/// 30 row stores saved per product).
#[repr(C, align(64))]
pub(super) struct ShiftedA<'a, const NR: usize> {
    v: [[[u64; 8]; NR]; 3],
    top: [[u64; 8]; 3],
    zero: [u64; 8],
    a: &'a Lanes<NR>,
}

impl<'a, const NR: usize> ShiftedA<'a, NR> {
    /// Positions 4r..4r+3 of (a << 52 s); `s` and `r` are constants at every call.
    #[inline(always)]
    pub(super) fn row(&self, s: usize, r: usize) -> &[u64; 8] {
        match s {
            0 if r < NR => &self.a.0[r],
            0 => &self.zero,
            4 if r == 0 => &self.zero,
            4 => &self.a.0[r - 1],
            _ if r < NR => &self.v[s - 1][r],
            _ => &self.top[s - 1],
        }
    }
}

/// The shifted copies of a secret operand, with the vector unit (VALIGNQ).
#[target_feature(enable = "avx512f")]
pub(super) fn shift_copies<const NR: usize>(a: &Lanes<NR>) -> ShiftedA<'_, NR> {
    let mut out = ShiftedA {
        v: [[[0; 8]; NR]; 3],
        top: [[0; 8]; 3],
        zero: [0; 8],
        a,
    };
    let zero = _mm512_setzero_si512();
    let mut prev = zero;
    for r in 0..=NR {
        let cur = if r < NR { ld!(&a.0[r]) } else { zero };
        let rows = [
            _mm512_alignr_epi64::<6>(cur, prev),
            _mm512_alignr_epi64::<4>(cur, prev),
            _mm512_alignr_epi64::<2>(cur, prev),
        ];
        for (s, v) in rows.into_iter().enumerate() {
            let dst = if r < NR { &mut out.v[s][r] } else { &mut out.top[s] };
            // SAFETY: `dst` is a 64-byte row of a 64-byte aligned `ShiftedA`.
            unsafe { _mm512_store_si512(dst.as_mut_ptr().cast(), v) };
        }
        prev = cur;
    }
    out
}
