//! Radix-2^52 almost-Montgomery multiplication, dedicated squaring and the
//! dual (CRT) fixed-window exponentiation on AVX-512 IFMA, 512-bit registers.
//!
//! # Layout: p and q interleaved lane by lane
//!
//! Both CRT halves run in the same registers: lane 2j of the flat vector holds
//! digit j of the p operand and lane 2j + 1 digit j of the q operand, so a zmm
//! register holds four digit positions of each (register r: positions
//! 4r..4r+3), and 2 x 20 digits fill 5 registers exactly. Broadcasting "digit
//! i of b" is one 128-bit broadcast of the pair (`b_p[i]`, `b_q[i]`). Every
//! instruction serves both halves, so the two independent dependency chains of
//! the CRT exponentiation are interleaved at the finest grain. A single
//! exponentiation uses the same kernels with both halves equal.
//!
//! # Multiplication: operand scanning into a fixed-position window
//!
//! d = 4 NR steps (d is a multiple of 4; see `portable52::digits_for_bits`).
//! Step i = 4g + s adds a_j b_i and n_j y_i at positions i + j (lo halves)
//! and i + j + 1 (hi halves). The accumulator does not move: the operands do.
//! `Shifted` (n, once per key) and `ShiftedA` (a, per product; shifts 0 and
//! 4 read `a` in place) hold the operands shifted up by 0..=4 digits, so each
//! step is, for
//! every register r of a window of NR + 1 registers (slot r = positions
//! 4(g + r)..+3), two IFMAs into `wa[r]` (the a b part) and two into `wn[r]`
//! (the n y part): no VALIGNQ per step, and no register chains more than two
//! IFMAs per step (8 cycles). Every 4 steps the window slides one register
//! (register renaming in the unrolled code). The modulus rows are read from
//! memory in the loop, not hoisted: hoisted, they do not fit the registers and
//! the compiler copies them to the stack on every product (30 rows at d = 20).
//!
//! # The quotient chain, in broadcast form
//!
//! y_i needs position i in full, carries included. That value, x0, is kept
//! separately with (p, q) in every lane pair, so y = lo(x0 k0) needs no
//! shuffle (IFMA reads only the low 52 bits of x0: no masking either):
//!
//! ```text
//! y_i      = lo(x0_i k0)
//! c_i      = (x0_i + 2^52 - 1) >> 52      the carry out of position i after + lo(n0 y_i)
//! x0_{i+1} = [bcast(position i+1 of wa + wn) + lo(a0 b_{i+1})] + lo(n1 y_i) + hi(n0 y_i) + c_i
//! ```
//!
//! The state holds X_i = x0_i + 2^52 - 1 rather than x0_i: then c_i = X_i >> 52
//! (one operation on the chain, not two) and y_i = lo(X_i k0) + k0 (as
//! X_i + 1 = x0_i mod 2^52; IFMA reads only y's low 52 bits). The bias comes with every
//! position for free: `wn` starts each position at 2^52 - 1, so the bracket
//! already carries it, and it is subtracted from the result positions once.
//!
//! The bracket does not depend on y_i (it is read before step i's n part),
//! and c_i does not wait for y_i (x0 = H 2^52 + L; L + lo(n0 y) is 0 or 2^52,
//! the latter exactly when L != 0), so the chain per step is IFMA (y), IFMA
//! (lo n1 y, hi n0 y with c as addend), one add: about 10 cycles, measured
//! 2.9 ns per step with the accumulation removed. The accumulators never get
//! carries: positions below d are dropped, and the carry out of position
//! d - 1 (c_{d-1}) is added to position d at the end.
//!
//! # The quotient chain in xmm (Zen 4)
//!
//! In broadcast form every chain instruction works on all eight lanes for
//! one (p, q) pair. AMD Zen 4 runs a zmm instruction as two 256-bit halves,
//! so there the chain's zmm IFMAs (four a step in a product, five in a
//! square) take the multipliers twice as long as the pair needs, and its
//! zmm add has two cycles of latency. [`amm_dual_xmm`] keeps x0, c, y and
//! the chain's constants as one (p, q) pair in xmm registers: the bracket
//! is one 128-bit extract of the window (in place of the broadcast), and
//! y is broadcast once a step for the N part, off the chain. The terms and
//! results are those of the broadcast form, bit for bit. AMD Zen 4 (family
//! 25 model 17), `kernel_bench chain` (docs/lab/, twentieth
//! session): 20-digit product 161.7 against 172.6 ns, square 148.8 against
//! 157.1, 40 digits 575 / 528 against 601 / 547 ns; RSA-2048 dual
//! exponentiation 194 against 207 us, RSA-4096 1266 against 1335 us. At 32
//! digits the square was 1-2% slower, and the pipelined chain (shift and
//! add, one IFMA) measured slower in xmm (RSA-3072 606 against 595 us), so
//! the pipelined form keeps the broadcast chain. `super::xmm_chain` picks
//! the xmm form on family 25 only: the other CPUs run zmm at full width and
//! were tuned with the broadcast form.
//!
//! # Quotient pipelining (RSA-3072's primes)
//!
//! Seed 003 (Shand and Vuillemin), section 8.2, pipelines the quotient by
//! choosing each quotient digit so that it clears d + 1 digits at once; we
//! use the modulus-scaling form of the same idea. For a prime m whose digit
//! count leaves 106 bits of margin (bits + 106 <= 52 d: 1536-bit primes at
//! 32 digits, not 1024 at 20 or 2048 at 40), the run works modulo
//! M = m s, s = -m^-1 mod 2^104 (`Modulus52::pipelined`), so M = -1 mod
//! 2^104 and 4M < R still holds. Then -M^-1 = 1 mod 2^52, and y_i is position
//! i itself: adding y_i M clears position i exactly (carry U_i >> 52, no
//! bias) and adds y_i (M + 1) = y_i S at positions i + 2 and up only. The
//! rows hold S = M + 1, whose digits 0 and 1 are zero. The chain per step
//! is a shift and an add:
//!
//! ```text
//! y_i      = U_i                          (IFMA reads its low 52 bits)
//! U_{i+1}  = bcast(position i + 1) + lo(a0 b_{i+1}) + (U_i >> 52)    product
//! U_{i+1}  = bcast(position i + 1) + lo(s2 y_{i-1}) + (U_i >> 52)    square
//! ```
//!
//! (the square issues step i - 1's N part after the chain of i, so its one
//! term at position i + 1 is computed there). No IFMA waits on y_i within
//! its own step: three IFMAs per step leave the product's chain and four the
//! square's. Y = sum y_i 2^(52 i) is the Montgomery quotient of M with k0 = 1,
//! so the results are bit for bit those of `portable52::amm_mul` mod M.
//! Values stay below 2M, congruent mod m; [`pow_dual`] ends with the
//! product by 1 mod m itself ((x + Y m) / R < 1 + m for x < R), which leaves
//! the run's modulus. RSA-3072 dual exponentiation, AMD Zen 5: 10% faster
//! (`kernel_bench pipe`).
//!
//! # Dedicated squaring
//!
//! For a^2, step i adds only a_j a_i with j >= i: off-diagonal terms (j > i)
//! into `wa`, which is doubled where it is read (in 64-bit lanes: doubling
//! there is not limited by IFMA's 52-bit inputs), the diagonal lo/hi(a_i^2)
//! into `wn`. Registers wholly below the diagonal are skipped, so the a part
//! costs about half. A square also issues each step's N part one step late
//! (after the next step's chain), so the bracket of x0_{i+1} takes that
//! part's two terms there, lo(n2 y_{i-1}) + hi(n1 y_{i-1}), from two IFMAs of
//! its own (`amm_dual` gives the order and its measurements). [`sqr_dual`]
//! uses the dedicated squaring where the caller chose it (by request or by a
//! calibration per register count: which of the two is faster differs
//! between CPUs).
//!
//! # Lane bound (no overflow of the 64-bit lanes)
//!
//! Every lane starts at 0 (`wn`: at the bias, 0 when pipelined) and only receives IFMA halves (each < 2^52). Per
//! step a position receives at most lo + hi of one a b (or a_i a_j) product and
//! lo + hi of one n y product, i.e. < 4 * 2^52 over wa and wn, and it is live
//! for at most d + 1 steps; with wa doubled for a square the sum stays below
//! 6 (d + 1) 2^52 <= 246 * 2^52 for d <= 40; the bias 2^52 - 1 and x0's one
//! carry (< 2^8) keep it below 248 * 2^52 < 2^60. No lane overflows.
//!
//! # Almost-Montgomery bound
//!
//! The result is (a b + Y m) / R with Y < R = 2^(52 d); for a, b < 2m and
//! 4m < R it is below 2m (proof in `arch::portable52`), so it fits d digits
//! and outputs are valid inputs. d = 4 ceil((bits + 2) / 208) guarantees 4m < R.
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
// `for_r!` compares a constant slot with `NR - 1`.
#![allow(clippy::int_plus_one)]

use core::arch::x86_64::*;

use zeroize::Zeroize;

use crate::arch::portable52::{self, MASK, Modulus52, Pipelined52, WINDOW};

/// The largest register count per operand: d <= 40 digits (moduli up to 2078 bits).
pub const MAX_NR: usize = 10;

/// Up to this register count the modulus rows are kept from loop hoisting
/// (`opaque`); above it (9 and 10 registers, where the window alone takes 22
/// of the 32 registers) the compiler's own schedule measured faster: RSA-4096
/// sign, Intel Xeon family 6 model 207, three alternating runs each, median
/// 1498 us without the barrier at 10 registers against 1563 us with it
/// (1518 us before either change).
const OPAQUE_MAX_NR: usize = 8;

/// Up to this register count [`amm_dual`] runs its groups written out,
/// without a loop over them: each group a copy with g a constant (for a
/// square the triangle's register choices and masks fold away) and the
/// window sliding by register renaming, where a loop slid it with one
/// register move per window register per group (moves take the IFMA ports
/// on Intel). Intel Xeon family 6 model 207, `kernel_bench dual`, interleaved
/// runs, best ns per dual square / product: 20 digits 138.7 / 148.0 against
/// 147.4 / 156.9 in a loop, 32 digits 251.6 / 289.6 against 269.1 / 301.8.
/// (Squares already had a copy per group inside the loop, which measured
/// 5% and 8% faster than one body with g at run time at 5 and 6 registers.)
/// At 10 registers (RSA-4096) the loop stays: written out, the square took
/// 424 ns against 408, the window no longer fitting the registers either way.
///
/// See also [`WRITTEN_OUT`].
const STRAIGHT_MAX_NR: usize = 8;

/// Whether groups are written out at all (up to [`STRAIGHT_MAX_NR`]) and
/// squares get a copy per group in the loop above it. Not in the library's
/// own unit-test build (`cfg(test)`) nor in the fuzz targets' (`cfg(fuzzing)`,
/// set by cargo-fuzz): there every register count runs the loop, squares
/// with g at run time. The results are the same, bit for bit, and those
/// builds are CI's: `cargo test -p redc --lib --no-run` took 136 s against
/// 230 s on AMD EPYC Zen 4 and 138 s against 235 s on the Intel Xeon
/// (family 6 model 207); the fuzz build's redc at opt-level 1, 132 s
/// against 168 s (Intel). The integration tests, the benchmarks, the
/// constant-time harnesses and every binary use the library as shipped,
/// written out.
const WRITTEN_OUT: bool = !cfg!(test) && !cfg!(fuzzing);

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

impl<const NR: usize> DualMod<NR> {
    /// The pipelined forms of two moduli (`Modulus52::pipelined`), for
    /// [`amm_dual`] with `PIPE`: the rows hold M + 1 (k0 is not read).
    pub fn pipelined(p: &Pipelined52, q: &Pipelined52) -> Self {
        assert!(p.m.len() == 4 * NR && q.m.len() == 4 * NR);
        let n = Lanes::interleave(&p.m_plus_one, &q.m_plus_one);
        DualMod {
            n,
            k0: Lanes([[1; 8]]),
            d: 4 * NR,
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
/// with double-pumped zmm; module comment, "The quotient chain in xmm").
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
    fn row(&self, s: usize, r: usize) -> &[u64; 8] {
        if r < NR { &self.v[s][r] } else { &self.top[s] }
    }
}

/// The operand `a` shifted up by s = 0..=4 digit positions, as [`Shifted`]
/// reads it, built per product. Only s = 1, 2, 3 are copies: s = 0 is `a`
/// itself and s = 4 is `a` one register up, so both are read in place (12 of
/// 30 row stores saved per product).
#[repr(C, align(64))]
struct ShiftedA<'a, const NR: usize> {
    v: [[[u64; 8]; NR]; 3],
    top: [[u64; 8]; 3],
    zero: [u64; 8],
    a: &'a Lanes<NR>,
}

impl<'a, const NR: usize> ShiftedA<'a, NR> {
    /// Positions 4r..4r+3 of (a << 52 s); `s` and `r` are constants at every call.
    #[inline(always)]
    fn row(&self, s: usize, r: usize) -> &[u64; 8] {
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
fn shift_copies<const NR: usize>(a: &Lanes<NR>) -> ShiftedA<'_, NR> {
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

/// Window slots: NR + 1 accumulator registers are used (one spare keeps the
/// unrolled slide in bounds).
const W: usize = MAX_NR + 2;

/// The A part of step i = 4 g + S (S a literal, so every register index and
/// shuffle constant is static; g is public): a_j b_i at positions i + j (lo)
/// and i + j + 1 (hi), or for a square the terms with j >= i. `$off` = 1
/// writes the registers one slot up: the next group's first A part, issued
/// before the window slides.
macro_rules! a_part {
    ($S:literal, $g:expr, $off:expr, $st:ident, $ash:ident, $src:expr, $nr:expr, $sqr:expr) => {{
        const S: usize = $S;
        let g: usize = $g;
        let i = 4 * g + S;
        let bi = bcast_digit!($src, i);
        if !$sqr {
            for_r!($nr, |r| {
                if !(S == 0 && r == $nr) {
                    $st.wa[r + $off] = _mm512_madd52lo_epu64($st.wa[r + $off], ld!($ash.row(S, r)), bi);
                }
                if !(S == 3 && r == 0) {
                    $st.wa[r + $off] = _mm512_madd52hi_epu64($st.wa[r + $off], ld!($ash.row(S + 1, r)), bi);
                }
            });
        } else {
            // Squaring: only j >= i. The off-diagonal terms (j > i) go to wa, which
            // is doubled when read; the diagonal a_i^2 (lo at 2i, hi at 2i + 1) to wn.
            // Lane pair k of operand register r holds digit j = 4r + k - S (lo) or
            // 4r + k - S - 1 (hi); j > i there when k > e with e as below.
            let thr = (4 * g + 2 * S) as isize;
            for_r!($nr, |r| {
                let e = thr - 4 * r as isize;
                if e < 0 {
                    $st.wa[r + $off] = _mm512_madd52lo_epu64($st.wa[r + $off], ld!($ash.row(S, r)), bi);
                } else if e <= 3 {
                    let lo_row = ld!($ash.row(S, r));
                    if e < 3 {
                        let k = $st.above[e as usize];
                        $st.wa[r + $off] = _mm512_mask_madd52lo_epu64($st.wa[r + $off], k, lo_row, bi);
                    }
                    $st.wn[r + $off] =
                        _mm512_mask_madd52lo_epu64($st.wn[r + $off], $st.pair[e as usize], lo_row, bi);
                }
                let e = e + 1;
                if e < 0 {
                    $st.wa[r + $off] = _mm512_madd52hi_epu64($st.wa[r + $off], ld!($ash.row(S + 1, r)), bi);
                } else if e <= 3 {
                    let hi_row = ld!($ash.row(S + 1, r));
                    if e < 3 {
                        let k = $st.above[e as usize];
                        $st.wa[r + $off] = _mm512_mask_madd52hi_epu64($st.wa[r + $off], k, hi_row, bi);
                    }
                    $st.wn[r + $off] =
                        _mm512_mask_madd52hi_epu64($st.wn[r + $off], $st.pair[e as usize], hi_row, bi);
                }
            });
        }
    }};
}

/// Position i + 1 of step i = 4 g + S as the window holds it (wa, doubled
/// for a square, plus wn), broadcast to every lane pair: the chain's bracket
/// before its own terms.
macro_rules! window_position {
    ($S:expr, $st:ident, $sqr:expr) => {{
        const PAIR: i32 = ((($S + 1) % 4) * 0x55) as i32;
        let reg = window_position!(@reg $S, $st, $sqr);
        _mm512_shuffle_i64x2::<PAIR>(reg, reg)
    }};
    // The same position as one (p, q) pair in an xmm register.
    ($S:expr, $st:ident, $sqr:expr, xmm) => {{
        const PAIR: i32 = (($S + 1) % 4) as i32;
        let reg = window_position!(@reg $S, $st, $sqr);
        _mm512_extracti32x4_epi32::<PAIR>(reg)
    }};
    (@reg $S:expr, $st:ident, $sqr:expr) => {{
        const SLOT: usize = ($S + 1) / 4;
        let wa = if $sqr {
            _mm512_add_epi64($st.wa[SLOT], $st.wa[SLOT])
        } else {
            $st.wa[SLOT]
        };
        _mm512_add_epi64(wa, $st.wn[SLOT])
    }};
}

/// The quotient chain of step i = 4 g + S: y_i, and position i + 1 in full
/// (X_{i+1}); the last argument `true` selects the pipelined form (module
/// comment, "Quotient pipelining"). Its A part was issued before it (see `amm_dual`). In a product
/// the N part of step i - 1 was issued before it too, so the bracket read
/// here holds that part's terms at position i + 1; in a square that N part
/// comes after this chain (the order `amm_dual` describes), and its two
/// terms at position i + 1 are computed here from y_{i-1}.
macro_rules! chain {
    ($S:literal, $g:expr, $st:ident, $src:expr, $nr:expr, $sqr:expr, true) => {{
        // Pipelined: the modulus is M = S - 1 with S = 0 mod 2^104 (the rows
        // hold S). y_i is position i itself (IFMA reads its low 52 bits); the
        // carry out of position i is exact (U_i - y_i = (U_i >> 52) 2^52); and
        // y_i reaches positions i + 2 and above only, so position i + 1 needs
        // no term of y_i. `x0` holds U_i (no bias).
        const S: usize = $S;
        let g: usize = $g;
        let i = 4 * g + S;
        let zero = _mm512_setzero_si512();
        let x = $st.x0;
        $st.c = _mm512_srli_epi64::<52>(x);
        let rb = window_position!(S, $st, $sqr);
        // A square issues step i - 1's N part after this chain: its one term
        // at position i + 1 is lo(s2 y_{i-1}) (s0 = s1 = 0). A product issued
        // it before, so the window has it; there the next step's a part at
        // position i + 1 goes on top instead.
        let rb = if $sqr {
            _mm512_madd52lo_epu64(rb, $st.n2, $st.y_prev)
        } else if i + 1 < 4 * $nr {
            _mm512_add_epi64(rb, _mm512_madd52lo_epu64(zero, $st.a0, bcast_digit!($src, i + 1)))
        } else {
            rb
        };
        $st.x0 = _mm512_add_epi64(rb, $st.c);
        $st.y_prev = x;
    }};
    ($S:literal, $g:expr, $st:ident, $src:expr, $nr:expr, $sqr:expr, false) => {{
        const S: usize = $S;
        let g: usize = $g;
        let i = 4 * g + S;
        let zero = _mm512_setzero_si512();
        // The quotient chain in broadcast form (every lane pair holds (p, q)):
        // x0 is position i in full (all earlier terms and carries, this step's a part).
        // The state holds X = x0 + 2^52 - 1 (the bias comes with every position:
        // see `wn`'s initial value). X = x0 - 1 mod 2^52, so y = lo(X k0) + k0.
        let x = $st.x0;
        let y = _mm512_madd52lo_epu64($st.k0, x, $st.k0);
        // Carry out of position i once lo(n0 y) is added, without waiting for y:
        // x0 = H 2^52 + L, and L + lo(n0 y) is 0 or 2^52, the latter exactly when
        // L != 0; so the carry is H + [L != 0] = (x0 + 2^52 - 1) >> 52 = X >> 52.
        $st.c = _mm512_srli_epi64::<52>(x);
        // Position i + 1 as accumulated so far: this step's a part, and the n
        // parts of steps up to i - 2 (step i - 1's is issued after this chain).
        let rb = window_position!(S, $st, $sqr);
        // Step i - 1's n part at position i + 1, lo(n2 y_{i-1}) + hi(n1 y_{i-1})
        // (zero for i = 0: y_prev starts at zero), with the next step's a part
        // at position i + 1 (a product only; zero for a square) on top. All of
        // it waits on y_{i-1} only, which is 10 cycles older than y_i.
        let rb = if $sqr {
            _mm512_add_epi64(
                rb,
                _mm512_madd52hi_epu64(
                    _mm512_madd52lo_epu64(zero, $st.n2, $st.y_prev),
                    $st.n1,
                    $st.y_prev,
                ),
            )
        } else if i + 1 < 4 * $nr {
            _mm512_add_epi64(rb, _mm512_madd52lo_epu64(zero, $st.a0, bcast_digit!($src, i + 1)))
        } else {
            rb
        };
        // Position i + 1 in full: + lo(n1 y) + hi(n0 y) + carry. The carry enters as
        // an addend, which the IFMA needs only after y; no add waits on the chain but one.
        $st.x0 = _mm512_add_epi64(
            _mm512_madd52lo_epu64(rb, $st.n1, y),
            _mm512_madd52hi_epu64($st.c, $st.n0, y),
        );
        $st.y_prev = y;
    }};
}

/// The quotient chain of step i = 4 g + S in xmm registers: the same terms
/// as the broadcast form above (`false`), on one (p, q) pair, with y_i
/// broadcast once for the N parts (module comment, "The quotient chain in
/// xmm").
macro_rules! chain_xmm {
    ($S:literal, $g:expr, $st:ident, $src:expr, $nr:expr, $sqr:expr) => {{
        const S: usize = $S;
        let g: usize = $g;
        let i = 4 * g + S;
        let zero = _mm_setzero_si128();
        let x = $st.x0x;
        let y = _mm_madd52lo_epu64($st.k0x, x, $st.k0x);
        $st.cx = _mm_srli_epi64::<52>(x);
        let rb = window_position!(S, $st, $sqr, xmm);
        let rb = if $sqr {
            let yp = $st.yx_prev;
            _mm_add_epi64(
                rb,
                _mm_madd52hi_epu64(_mm_madd52lo_epu64(zero, $st.n2x, yp), $st.n1x, yp),
            )
        } else if i + 1 < 4 * $nr {
            _mm_add_epi64(rb, _mm_madd52lo_epu64(zero, $st.a0x, bpair!($src, i + 1)))
        } else {
            rb
        };
        $st.x0x = _mm_add_epi64(
            _mm_madd52lo_epu64(rb, $st.n1x, y),
            _mm_madd52hi_epu64($st.cx, $st.n0x, y),
        );
        $st.yx_prev = y;
        $st.y_prev = _mm512_broadcast_i32x4(y);
    }};
}

/// The state of one product: accumulator window (slot r = positions
/// 4(g + r)..4(g + r) + 3 in group g), the a part (wa) and the n part plus
/// the diagonal of a square (wn) kept apart so that no register chains more
/// than two IFMAs per step, and the broadcast quotient chain.
struct State<const NR: usize> {
    wa: [__m512i; W],
    wn: [__m512i; W],
    a0: __m512i,
    x0: __m512i,
    c: __m512i,
    k0: __m512i,
    n0: __m512i,
    n1: __m512i,
    n2: __m512i,
    /// y of the previous step (zero before step 0).
    y_prev: __m512i,
    /// Every position's start in `wn`: 2^52 - 1, or 0 when pipelined.
    bias: __m512i,
    /// The chain in xmm (`chain_xmm!`): x0, c, k0, n0..n2, a0 and y_prev
    /// as one (p, q) pair each.
    x0x: __m128i,
    cx: __m128i,
    k0x: __m128i,
    n0x: __m128i,
    n1x: __m128i,
    n2x: __m128i,
    a0x: __m128i,
    yx_prev: __m128i,
    /// The squaring's lane masks (lane pairs above pair e, and pair e),
    /// hidden from the compiler (`opaque_mask`) so that it keeps them in
    /// mask registers and issues masked IFMAs, not IFMA + blend.
    above: [__mmask8; 4],
    pair: [__mmask8; 4],
}

/// `out = amm(a, b)` (or `amm(a, a)` when `SQR`, the dedicated squaring; `b`
/// unread), both halves at once, d = 4 NR steps. Preconditions (callers):
/// digits below 2^52, values below 2m per half, `m.d == 4 NR`.
///
/// # Safety
/// Call only where AVX-512F, AVX-512IFMA and AVX-512VL are available
/// (callers check [`super::ifma_available`]); the function itself has no
/// other hazard.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub fn amm_dual<const NR: usize, const SQR: bool, const PIPE: bool>(
    out: &mut Lanes<NR>,
    a: &Lanes<NR>,
    b: &Lanes<NR>,
    m: &DualMod<NR>,
) {
    // SAFETY: this function enables the features the body needs.
    unsafe { amm_dual_body::<NR, SQR, PIPE, false>(out, a, b, m) }
}

/// [`amm_dual`] (not pipelined) with the quotient chain in xmm registers
/// (module comment, "The quotient chain in xmm"): the same result, bit for
/// bit. Same preconditions.
///
/// # Safety
/// As [`amm_dual`].
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub fn amm_dual_xmm<const NR: usize, const SQR: bool>(
    out: &mut Lanes<NR>,
    a: &Lanes<NR>,
    b: &Lanes<NR>,
    m: &DualMod<NR>,
) {
    // SAFETY: this function enables the features the body needs.
    unsafe { amm_dual_body::<NR, SQR, false, true>(out, a, b, m) }
}

/// [`amm_dual`], or [`amm_dual_xmm`] when `XMM` (then `PIPE` is false).
/// Same safety contract.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
fn amm_form<const NR: usize, const SQR: bool, const PIPE: bool, const XMM: bool>(
    out: &mut Lanes<NR>,
    a: &Lanes<NR>,
    b: &Lanes<NR>,
    m: &DualMod<NR>,
) {
    if XMM {
        amm_dual_xmm::<NR, SQR>(out, a, b, m)
    } else {
        amm_dual::<NR, SQR, PIPE>(out, a, b, m)
    }
}

/// [`sqr_dual`] in the chain's form `XMM` (as [`amm_form`]). Same safety
/// contract as [`amm_dual`].
#[inline]
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
fn sqr_form<const NR: usize, const PIPE: bool, const XMM: bool>(
    out: &mut Lanes<NR>,
    a: &Lanes<NR>,
    m: &DualMod<NR>,
    dedicated: bool,
) {
    if dedicated {
        amm_form::<NR, true, PIPE, XMM>(out, a, a, m)
    } else {
        amm_form::<NR, false, PIPE, XMM>(out, a, a, m)
    }
}

/// From this register count up, the window's run of dedicated squarings is
/// one function ([`sqr_run`]: the squaring's body inlined into a loop)
/// rather than one call per square. AMD Zen 5 (family 26 model 2),
/// `kernel_bench pow`, the dual exponentiation with dedicated squaring,
/// three interleaved runs: at 10 registers (RSA-4096) 634-642 us against
/// 660-669 us in calls, and `redc speed` RSA-4096 sign 709-734 against
/// 725-752 us (four interleaved rounds); at 5 and 8 registers the inlined
/// loop was slower (2048: 111-113 against 106-108 us; 3072, pipelined:
/// 315-320 against 267-271 us), so there each square stays a call.
const SQR_RUN_MIN_NR: usize = STRAIGHT_MAX_NR + 1;

/// `count` successive squarings of `x`, alternating between `x` and `y`
/// (the result is in `x` for an even count, in `y` for an odd one), with
/// the dedicated squaring or the product as `dedicated` says. From
/// [`SQR_RUN_MIN_NR`] registers up the dedicated squaring's body runs
/// inlined in one loop; else each square is a call ([`sqr_form`]). Same
/// preconditions as [`amm_dual`].
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
fn sqr_run<const NR: usize, const PIPE: bool, const XMM: bool>(
    x: &mut Lanes<NR>,
    y: &mut Lanes<NR>,
    m: &DualMod<NR>,
    count: usize,
    dedicated: bool,
) {
    for k in 0..count {
        let (src, dst) = if k % 2 == 0 {
            (&*x, &mut *y)
        } else {
            (&*y, &mut *x)
        };
        if dedicated && NR >= SQR_RUN_MIN_NR {
            // SAFETY: this function enables the features the body needs.
            unsafe { amm_dual_body::<NR, true, PIPE, XMM>(dst, src, src, m) }
        } else {
            sqr_form::<NR, PIPE, XMM>(dst, src, m, dedicated);
        }
    }
}

/// The body of [`amm_dual`], inlined into its callers ([`amm_dual`],
/// [`sqr_run`]).
///
/// # Safety
/// Call only from functions that enable AVX-512F, AVX-512IFMA and AVX-512VL.
#[inline(always)]
#[allow(unused_unsafe)] // the macros' own `unsafe` blocks, inside this one
unsafe fn amm_dual_body<const NR: usize, const SQR: bool, const PIPE: bool, const XMM: bool>(
    out: &mut Lanes<NR>,
    a: &Lanes<NR>,
    b: &Lanes<NR>,
    m: &DualMod<NR>,
) {
    // SAFETY: the caller enables AVX-512F, AVX-512IFMA and AVX-512VL (this
    // function's contract); every intrinsic and callee below needs no more.
    unsafe {
        assert!(m.d == 4 * NR && NR <= MAX_NR && !(XMM && PIPE));
        let zero = _mm512_setzero_si512();
        let src = if SQR { a } else { b };
        let a0 = ld!(&a.0[0]);
        // The bias of X (see the chain), none in the pipelined form.
        let bias = if PIPE {
            zero
        } else {
            _mm512_set1_epi64(MASK as i64)
        };
        let mut st = State::<NR> {
            wa: [zero; W],
            // Every position starts at 2^52 - 1 in `wn` (the bias of X; removed
            // from the result positions at the end).
            wn: [bias; W],
            a0: _mm512_shuffle_i64x2::<0>(a0, a0),
            x0: zero,
            c: zero,
            k0: ld!(&m.k0.0[0]),
            n0: bcast_digit!(m.n, 0),
            n1: bcast_digit!(m.n, 1),
            n2: bcast_digit!(m.n, 2),
            y_prev: zero,
            bias,
            x0x: _mm_setzero_si128(),
            cx: _mm_setzero_si128(),
            k0x: _mm512_castsi512_si128(ld!(&m.k0.0[0])),
            n0x: bpair!(m.n, 0),
            n1x: bpair!(m.n, 1),
            n2x: bpair!(m.n, 2),
            a0x: _mm512_castsi512_si128(a0),
            yx_prev: _mm_setzero_si128(),
            above: core::array::from_fn(|e| opaque_mask((0xffu16 << (2 * (e + 1))) as u8)),
            pair: core::array::from_fn(|e| opaque_mask(0b11 << (2 * e))),
        };
        let ash = shift_copies(a);
        // Position 0 in full before step 0, biased: lo(a_0 b_0) + 2^52 - 1.
        if XMM {
            st.x0x = _mm_madd52lo_epu64(_mm512_castsi512_si128(st.bias), st.a0x, bpair!(src, 0));
        } else {
            st.x0 = _mm512_madd52lo_epu64(st.bias, st.a0, bcast_digit!(src, 0));
        }
        a_part!(0, 0, 0, st, ash, src, NR, SQR);
        // Program order per step i of a product: the chain of i, its N part, the
        // A part of i + 1 (which does not wait for y_i; issued after the chain,
        // it cannot take the chain's ports first). Of a square: the chain of i,
        // the N part of i - 1, the A part of i + 1; the N part of a group's last
        // step is issued after the window slid (one slot down), the last one
        // after the loop. The square's order costs two IFMAs per step (`chain!`)
        // and keeps the IFMAs that wait on y_{i-1} younger than the chain of i,
        // so they cannot take the ports ahead of it (schedulers pick the oldest
        // ready instruction; that this is why it helps is our reading, not a
        // port-counter measurement: the guests have no PMU). Measured on AMD
        // Zen 5 (family 26 model 2), `kernel_bench dual`, three interleaved
        // runs: the dedicated 20-digit square 78-81 ns against 83-86 in the
        // product's order; `kernel_bench sqr` 5-10% faster at 4 to 32 digits, the
        // same at 36 and 40. The product in the square's order measured no
        // faster at 20 digits (88-91 against 87-90 ns) and 1-2% slower at 32 and
        // 40, so products keep theirs. Whether a square runs dedicated or as a
        // product is calibrated per register count (`super::dedicated_sqr`), so
        // a CPU where this order loses falls back to the product.
        // `$late` is the N part a square issues after the chain of step `$S`:
        // that of step S - 1 (for S = 0, the previous group's last step).
        macro_rules! step {
        ($S:literal, $g:expr, $m:ident, |$y:ident| $late:block) => {{
            let $y = st.y_prev;
            if XMM {
                chain_xmm!($S, $g, st, src, NR, SQR);
            } else if PIPE {
                chain!($S, $g, st, src, NR, SQR, true);
            } else {
                chain!($S, $g, st, src, NR, SQR, false);
            }
            if !SQR {
                n_part!($S, 3, 0, st, st.y_prev, $m, NR);
            } else $late
        }};
    }
        macro_rules! group {
            ($g:expr, $m:ident) => {{
                step!(0, $g, $m, |y| {
                    if $g > 0 {
                        n_part!(3, 3, -1, st, y, $m, NR);
                    }
                });
                a_part!(1, $g, 0, st, ash, src, NR, SQR);
                step!(1, $g, $m, |y| { n_part!(0, 3, 0, st, y, $m, NR) });
                a_part!(2, $g, 0, st, ash, src, NR, SQR);
                step!(2, $g, $m, |y| { n_part!(1, 3, 0, st, y, $m, NR) });
                a_part!(3, $g, 0, st, ash, src, NR, SQR);
                step!(3, $g, $m, |y| { n_part!(2, 3, 0, st, y, $m, NR) });
                if $g + 1 < NR {
                    a_part!(0, $g + 1, 1, st, ash, src, NR, SQR);
                }
            }};
        }
        // Slot 0 (positions 4g..4g+3) is finished: only its carry, already in
        // the quotient chain, matters. Slide the window.
        macro_rules! slide {
            () => {{
                for_r!(NR - 1, |r| {
                    st.wa[r] = st.wa[r + 1];
                    st.wn[r] = st.wn[r + 1];
                });
                // Slot NR + 1 holds the next group's first A part (issued above).
                st.wa[NR] = st.wa[NR + 1];
                st.wn[NR] = st.wn[NR + 1];
                st.wa[NR + 1] = zero;
                st.wn[NR + 1] = st.bias;
            }};
        }
        // Hide the loop invariance of the modulus rows from the optimiser: hoisted
        // out of the loop they spill, i.e. get copied to the stack on every call.
        let rows = |g: usize| if NR <= OPAQUE_MAX_NR { opaque(m, g) } else { m };
        if WRITTEN_OUT && NR <= STRAIGHT_MAX_NR {
            // The groups written out, g a constant in each (see `STRAIGHT_MAX_NR`).
            macro_rules! straight {
            ($($g:literal)*) => {{
                $(
                    if $g < NR {
                        let m = rows($g);
                        group!($g, m);
                        slide!();
                    }
                )*
            }};
        }
            straight!(0 1 2 3 4 5 6 7 8 9);
        } else {
            for g in 0..NR {
                let m = rows(g);
                if SQR && WRITTEN_OUT {
                    // A copy per group, g a constant in each (as above), within
                    // the loop. (Not in the unit-test and fuzz builds: see `WRITTEN_OUT`.)
                    match g {
                        0 => group!(0, m),
                        1 => group!(1, m),
                        2 => group!(2, m),
                        3 => group!(3, m),
                        4 => group!(4, m),
                        5 => group!(5, m),
                        6 => group!(6, m),
                        7 => group!(7, m),
                        8 => group!(8, m),
                        _ => group!(9, m),
                    }
                } else {
                    group!(g, m);
                }
                slide!();
            }
        }
        if SQR {
            // The last step's N part (the window has slid past its group).
            let m_last = rows(NR - 1);
            n_part!(3, 3, -1, st, st.y_prev, m_last, NR);
        }
        // Positions d..2d-1, plus the carry out of position d - 1.
        let mut res = [zero; NR];
        for r in 0..NR {
            let wa = if SQR {
                _mm512_add_epi64(st.wa[r], st.wa[r])
            } else {
                st.wa[r]
            };
            res[r] = _mm512_sub_epi64(_mm512_add_epi64(wa, st.wn[r]), st.bias);
        }
        let c = if XMM { _mm512_zextsi128_si512(st.cx) } else { st.c };
        res[0] = _mm512_mask_add_epi64(res[0], 0b11, res[0], c);
        // The shifted copies of `a` stay on the stack (volatile zeroing of 2-4 KiB per
        // product would cost more than the product); later products overwrite them.
        normalize(out, &res);
    }
}

/// `out = amm(a, a)` with the dedicated squaring or the product, as the
/// caller chose for this register count (`arch::x86_64::dedicated_sqr`: the
/// better one differs between CPUs and register counts; on Zen 4 the
/// dedicated squaring measured 0.87x the product at 5 registers and 1.09x at
/// 10, where the window of 2 x 11 accumulators and the triangle's masks no
/// longer fit the 32 registers).
///
/// # Safety
/// Call only where AVX-512F, AVX-512IFMA and AVX-512VL are available.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub fn sqr_dual<const NR: usize, const PIPE: bool>(
    out: &mut Lanes<NR>,
    a: &Lanes<NR>,
    m: &DualMod<NR>,
    dedicated: bool,
) {
    sqr_form::<NR, PIPE, false>(out, a, m, dedicated);
}

/// `k`, through an empty asm statement in a mask register: the compiler
/// cannot see the constant, so it neither rebuilds it at every use nor
/// turns a masked IFMA into an IFMA and a blend.
#[inline]
#[target_feature(enable = "avx512f")]
fn opaque_mask(k: __mmask8) -> __mmask8 {
    let mut k = k;
    // SAFETY: the asm is empty; `k` comes out unchanged.
    unsafe { core::arch::asm!("/* {0} */", inout(kreg) k, options(pure, nomem, nostack, preserves_flags)) };
    k
}

/// `r`, through an empty asm statement that also takes `g`: the compiler can
/// neither see that the result is `r` nor move it out of a loop over `g`.
#[inline(always)]
pub(super) fn opaque<T>(r: &T, g: usize) -> &T {
    // The address as an integer: the asm neither reads nor writes memory.
    let mut addr = r as *const T as usize;
    // SAFETY: the asm is empty; `addr` comes out unchanged, so it is still `r`'s
    // address, and `r` is borrowed for the result's lifetime.
    unsafe {
        core::arch::asm!("/* {0} {1} */", inout(reg) addr, in(reg) g, options(pure, nomem, nostack, preserves_flags));
        &*(addr as *const T)
    }
}

/// An empty asm statement that pins `x` to a general register: it keeps the
/// compiler from packing the mask chains below into slow vector code.
#[inline(always)]
fn gpr(mut x: u64) -> u64 {
    // SAFETY: the asm is empty; it only constrains x to a general register.
    unsafe { core::arch::asm!("/* {0} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags)) };
    x
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
pub fn add_dual<const NR: usize>(out: &mut Lanes<NR>, a: &Lanes<NR>, b: &Lanes<NR>) {
    let zero = _mm512_setzero_si512();
    let mut v = [zero; NR];
    for r in 0..NR {
        v[r] = _mm512_add_epi64(ld!(&a.0[r]), ld!(&b.0[r]));
    }
    normalize(out, &v);
}

// `pow_dual` takes the window's squarings in one odd-length run (its result
// in the run's second buffer).
const _: () = assert!(WINDOW % 2 == 1);

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

/// The dual fixed-window exponentiation: returns (x_p^ep, x_q^eq) per half,
/// at most m (not yet fully reduced), where `first` holds x R per half (R =
/// 2^(52 d)): the base in the Montgomery domain, table entry 1. Callers make
/// it with one product, amm(base, f R^2) = base f R, which also brings in a
/// blinding factor f (f = 1: `rr` itself), or with two (an input wider than
/// m, [`add_dual`]). `first` may exceed 2m as long as first^2 / R < m and
/// 2m first / R < m (the products with it stay below 2m): below 2m always
/// (4m < R), below 4.1m where 17m < R. `rr` is R^2 mod m, interleaved
/// digits; exponents are u64 limbs whose lengths are public (the shorter one
/// is zero-extended).
///
/// With `PIPE`, `m` is the pipelined form of the moduli (M = m s with M = -1
/// mod 2^104; see "Quotient pipelining") and `rr`, `first` are taken mod M:
/// the run works mod M, which is a multiple of m, and the last product, by
/// one, runs with `exit`, the moduli themselves: (x + Y m) / R < 1 + m for
/// any x < R. Without `PIPE`, `exit` is `m`.
///
/// `xmm` runs a plain (not pipelined) exponentiation with the quotient
/// chain in xmm registers ([`amm_dual_xmm`], chosen per CPU by
/// `super::xmm_chain`); a pipelined one ignores it.
///
/// # Safety
/// Call only where AVX-512F, AVX-512IFMA and AVX-512VL are available.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
#[allow(clippy::too_many_arguments)]
pub fn pow_dual<const NR: usize, const PIPE: bool>(
    m: &DualMod<NR>,
    exit: &DualMod<NR>,
    first: &Lanes<NR>,
    rr: &Lanes<NR>,
    ep: &[u64],
    eq: &[u64],
    dedicated_sqr: bool,
    xmm: bool,
) -> Lanes<NR> {
    if !PIPE && xmm {
        pow_dual_in::<NR, false, true>(m, exit, first, rr, ep, eq, dedicated_sqr)
    } else {
        pow_dual_in::<NR, PIPE, false>(m, exit, first, rr, ep, eq, dedicated_sqr)
    }
}

/// [`pow_dual`] with the chain's form fixed: in xmm registers when `XMM`
/// (then `PIPE` is false), else as [`amm_dual`] has it. Public for the
/// tests and benchmarks, which run both forms on any CPU.
///
/// # Safety
/// As [`pow_dual`].
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
#[allow(clippy::too_many_arguments)]
pub fn pow_dual_in<const NR: usize, const PIPE: bool, const XMM: bool>(
    m: &DualMod<NR>,
    exit: &DualMod<NR>,
    first: &Lanes<NR>,
    rr: &Lanes<NR>,
    ep: &[u64],
    eq: &[u64],
    dedicated_sqr: bool,
) -> Lanes<NR> {
    let mut one = Lanes::<NR>::ZERO;
    one.0[0][0] = 1;
    one.0[0][1] = 1;
    let mut table = vec![Lanes::<NR>::ZERO; 1 << WINDOW];
    amm_form::<NR, false, PIPE, XMM>(&mut table[0], rr, &one, m);
    table[1] = *first;
    for k in 2..(1 << WINDOW) {
        let mut x = Lanes::<NR>::ZERO;
        if k % 2 == 0 {
            sqr_form::<NR, PIPE, XMM>(&mut x, &table[k / 2], m, dedicated_sqr);
        } else {
            amm_form::<NR, false, PIPE, XMM>(&mut x, &table[k - 1], &table[1], m);
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
        // WINDOW (odd) squarings: the result is in y.
        sqr_run::<NR, PIPE, XMM>(&mut x, &mut y, m, WINDOW, dedicated_sqr);
        let pos = w * WINDOW;
        gather(
            &mut g,
            &table,
            portable52::window(ep, pos) as u64,
            portable52::window(eq, pos) as u64,
        );
        amm_form::<NR, false, PIPE, XMM>(&mut x, &y, &g, m);
    }
    amm_dual::<NR, false, false>(&mut y, &x, &one, exit);
    for e in table.iter_mut() {
        e.zeroize();
    }
    x.zeroize();
    g.zeroize();
    y
}

/// `base^exp` for a PUBLIC exponent (left-to-right binary, variable time in
/// `exp` only; constant time in the base), both halves with their own base
/// and the same exponent. Returns the Montgomery-domain result multiplied by
/// 1 (per half at most m, not yet fully reduced), like [`pow_dual`].
///
/// # Safety
/// Call only where AVX-512F, AVX-512IFMA and AVX-512VL are available.
#[target_feature(enable = "avx512f,avx512ifma,avx512vl")]
pub fn pow_dual_public<const NR: usize>(
    m: &DualMod<NR>,
    base: &Lanes<NR>,
    rr: &Lanes<NR>,
    exp: &[u64],
    dedicated_sqr: bool,
) -> Lanes<NR> {
    let mut one = Lanes::<NR>::ZERO;
    one.0[0][0] = 1;
    one.0[0][1] = 1;
    let mut bm = Lanes::<NR>::ZERO;
    amm_dual::<NR, false, false>(&mut bm, base, rr, m);
    let bits = crate::limb::bit_len_vartime(exp);
    // The exponent's top bit (public) starts the accumulator at the base
    // itself: no product by R mod m, no squaring of one.
    let mut x = Lanes::<NR>::ZERO;
    if bits == 0 {
        amm_dual::<NR, false, false>(&mut x, rr, &one, m); // R mod m: the Montgomery form of 1
    } else {
        x = bm;
    }
    let mut y = Lanes::<NR>::ZERO;
    for i in (0..bits.saturating_sub(1)).rev() {
        sqr_dual::<NR, false>(&mut y, &x, m, dedicated_sqr);
        if (exp[i / 64] >> (i % 64)) & 1 == 1 {
            amm_dual::<NR, false, false>(&mut x, &y, &bm, m);
        } else {
            x = y;
        }
    }
    amm_dual::<NR, false, false>(&mut y, &x, &one, m);
    bm.zeroize();
    x.zeroize();
    y
}
