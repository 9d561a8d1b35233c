//! The AVX2 almost-Montgomery product in radix 2^28, one modulus per call:
//! Montgomery's interleaved reduction ("Modular multiplication without trial
//! division", 1985) in the word-serial form that Koc, Acar and Kaliski call
//! CIOS ("Analyzing and comparing Montgomery multiplication algorithms",
//! 1996), laid out for 256-bit `vpmuludq` as Gueron and Krasnov's
//! "Software implementation of modular exponentiation, using advanced vector
//! instructions architectures" (2012) lays it out: four digits a register,
//! the accumulator a window of registers that slides one register every four
//! steps, and the quotient digits computed on the scalar side.
//!
//! # Layout
//!
//! An operand (`super::Operand`) holds four copies of its digits, copy c
//! shifted up by c digits, each 32-byte aligned and zero outside the digits.
//! Step i = 4g + k adds b_i a into the window by reading the copy k (and
//! q_{i-1} m from the copy of m shifted by k - 1), so every load is aligned
//! and no lane is ever moved inside the loop.
//!
//! # The quotient chain
//!
//! q_i = t_i k0 mod 2^28, where t_i is digit i of the running sum with the
//! carries of digits below i. The scalar side keeps t_i as
//! `e_i + b_i a_0 + q_{i-2} m_2 + q_{i-1} m_1 + c_i`: e_i is lane i of the
//! window read one step early (before b_i and q_{i-2} reached it), c_i =
//! (t_{i-1} + q_{i-1} m_0) / 2^28 is exact. So no vector operation sits on
//! the chain from q_{i-1} to q_i (two multiplications, an add, a shift).
//!
//! The `F` ("friendly") instances serve a modulus with m = -1 mod 2^28
//! (k0 = 1, `super::multiple_of`): there q_i = t_i mod 2^28 and, since
//! t_{i-1} - q_{i-1} is t_{i-1}'s upper part, c_i = (t_{i-1} >> 28) +
//! q_{i-1}. The chain keeps one multiplication (q_{i-1} m_1), an add and a
//! mask: about half the latency of the general one.
//!
//! # Bounds
//!
//! Digits below 2^28 + 2^9 (the outputs' redundant form): each product is
//! below 2^56.01, and a lane collects at most 2 s of them (one from a, one
//! from m per step), so lanes and t_i stay below 2^64 for s <= 114; the
//! kernel serves s from 4 V - 6 to 4 V - 3 with V <= 20 registers (s <= 77).
//! The output: value below 2m (almost-Montgomery, `radix`), digits below
//! 2^28 + 2^9 after two vector carry rounds (the first leaves below 2^36,
//! the second below 2^9 carried into each digit), zero beyond digit s - 1
//! (the value is below 2^(28 s) and no digit is negative).
//!
//! Operands and quotient digits are secret; s and V are public. Nothing
//! branches on or indexes memory by a secret.

use core::arch::asm;
use core::arch::x86_64::*;

use super::{PAD, lane, opaque, operand_len};

/// See the kernels' frame: any 64-byte aligned local forces the realignment.
#[repr(C, align(64))]
struct AlignedFrame([u64; 8]);

/// Digit mask as the scalar chain uses it.
const MASK: u64 = (1 << 28) - 1;

/// Fewest and most accumulator registers of the AVX2 instances (s from 30
/// to 57 digits: primes of 811 to 1594 bits).
pub const MIN_VECTORS: usize = 9;
/// See [`MIN_VECTORS`]. Beyond 15 the window no longer fits the 16 ymm
/// registers with the two broadcasts.
pub const MAX_VECTORS: usize = 15;
/// The most accumulator registers of the instances compiled with
/// AVX-512VL, whose EVEX encodings reach ymm16-ymm31 (s up to 77 digits:
/// primes up to 2154 bits, RSA-4096's).
pub const MAX_VL_VECTORS: usize = 20;

macro_rules! kernel {
    ($name:ident, $V:literal, [$($v:tt)*], [$($r:tt)*]) => {
        kernel!($name, $V, [$($v)*], [$($r)*], madd, "avx2");
    };
    ($name:ident, $V:literal, [$($v:tt)*], [$($r:tt)*], $madd:ident, $features:literal) => {
        /// `out = amm(a, b)` for s digits with this instance's register
        /// count; see the module documentation.
        ///
        /// # Safety
        /// The features named in its attribute (AVX2; AVX-512VL above 15
        /// registers) must be available. `out`, `a` and `m` point to operands of
        /// `operand_len(V)` u64 in the layout of `super::Operand`, `b` to one
        /// (its copy 0 is read); `out` differs from `a`, `b` and `m`; s is
        /// in 4 V - 6 ..= 4 V - 3; a, b < 2m with digits below 2^28 + 2^9;
        /// 4m < 2^(28 s).
        #[target_feature(enable = $features)]
        #[allow(unused_assignments)] // the last step's chain values
        pub(super) unsafe fn $name<const F: bool>(out: *mut u64, a: *const u64, b: *const u64, m: *const u64, k0: u64, s: usize) {
            const V: usize = $V;
            const SH: usize = operand_len(V) / 4;
            // SAFETY: every address below stays inside its operand: reads of
            // a copy at PAD + 4 r (+ 4 for m shifted down) for r < V, stores
            // at PAD + c - RM + 4 r, all within operand_len(V) / 4 words of
            // the copy's start; the reads and stores are aligned as `madd`
            // and `_mm256_storeu_si256` need; `out` does not alias the inputs.
            unsafe {
                // A 64-byte aligned local makes the compiler realign this
                // frame, so that the registers it spills (the window does
                // not fit 16 ymm registers with its broadcasts) sit in
                // aligned slots, never across a cache line.
                let mut frame = AlignedFrame([0; 8]);
                core::hint::black_box(&mut frame);
                let mut ap = a.add(PAD);
                let mut mp = m.add(PAD);
                let bp = b.add(PAD);
                let (m0, m1, m2) = (*mp, *mp.add(1), *mp.add(2));
                let a0 = *ap;
                let mut acc = [_mm256_setzero_si256(); V];
                let (mut e_cur, mut q_prev, mut q_prev2, mut s_prev) = (0u64, 0u64, 0u64, 0u64);
                macro_rules! step {
                    ($i:expr, $k:literal) => {{
                        let bi = *bp.add($i);
                        let bv = _mm256_set1_epi64x((bi as u32) as i64);
                        let ak = ap.add($k * SH);
                        $( $madd!(acc[$v], bv, ak, 32 * $v); )*
                        const NEXT: usize = $k + 1;
                        let e_next = lane(acc[NEXT / 4], NEXT % 4);
                        let carry = if F {
                            (s_prev >> 28).wrapping_add(q_prev)
                        } else {
                            s_prev.wrapping_add(q_prev.wrapping_mul(m0)) >> 28
                        };
                        let t = e_cur
                            .wrapping_add(bi.wrapping_mul(a0))
                            .wrapping_add(q_prev2.wrapping_mul(m2))
                            .wrapping_add(q_prev.wrapping_mul(m1))
                            .wrapping_add(carry);
                        let q = if F { t & MASK } else { t.wrapping_mul(k0) & MASK };
                        let qv = _mm256_set1_epi64x((q_prev as u32) as i64);
                        let mk = mp.add((($k + 3) % 4) * SH);
                        $( $madd!(acc[$v], qv, mk, 32 * $v + if $k == 0 { 32 } else { 0 }); )*
                        e_cur = e_next;
                        q_prev2 = q_prev;
                        q_prev = q;
                        s_prev = t;
                    }};
                }
                for g in 0..s / 4 {
                    (ap, mp) = (opaque(ap), opaque(mp));
                    step!(4 * g, 0);
                    step!(4 * g + 1, 1);
                    step!(4 * g + 2, 2);
                    step!(4 * g + 3, 3);
                    $( acc[$r] = acc[$r + 1]; )*
                    acc[V - 1] = _mm256_setzero_si256();
                }
                let i = s & !3;
                match s % 4 {
                    0 => finish!($madd, 0, acc, [$($v)*], mp, SH, q_prev, s_prev, m0, out),
                    1 => {
                        step!(i, 0);
                        finish!($madd, 1, acc, [$($v)*], mp, SH, q_prev, s_prev, m0, out)
                    }
                    2 => {
                        step!(i, 0);
                        step!(i + 1, 1);
                        finish!($madd, 2, acc, [$($v)*], mp, SH, q_prev, s_prev, m0, out)
                    }
                    _ => {
                        step!(i, 0);
                        step!(i + 1, 1);
                        step!(i + 2, 2);
                        finish!($madd, 3, acc, [$($v)*], mp, SH, q_prev, s_prev, m0, out)
                    }
                }
            }
        }
    };
}

kernel!(amm9, 9, [0 1 2 3 4 5 6 7 8], [0 1 2 3 4 5 6 7]);
kernel!(amm10, 10, [0 1 2 3 4 5 6 7 8 9], [0 1 2 3 4 5 6 7 8]);
kernel!(amm11, 11, [0 1 2 3 4 5 6 7 8 9 10], [0 1 2 3 4 5 6 7 8 9]);
kernel!(amm12, 12, [0 1 2 3 4 5 6 7 8 9 10 11], [0 1 2 3 4 5 6 7 8 9 10]);
kernel!(amm13, 13, [0 1 2 3 4 5 6 7 8 9 10 11 12], [0 1 2 3 4 5 6 7 8 9 10 11]);
kernel!(amm14, 14, [0 1 2 3 4 5 6 7 8 9 10 11 12 13], [0 1 2 3 4 5 6 7 8 9 10 11 12]);
kernel!(amm15, 15, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14], [0 1 2 3 4 5 6 7 8 9 10 11 12 13]);
kernel!(amm16, 16, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15], [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14],
    madd_vl, "avx2,avx512f,avx512vl");
kernel!(amm17, 17, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16], [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15],
    madd_vl, "avx2,avx512f,avx512vl");
kernel!(amm18, 18, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17], [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16],
    madd_vl, "avx2,avx512f,avx512vl");
kernel!(amm19, 19, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18], [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17],
    madd_vl, "avx2,avx512f,avx512vl");
kernel!(amm20, 20, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19], [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18],
    madd_vl, "avx2,avx512f,avx512vl");

/// The instance for `v` registers; `friendly` for a modulus with
/// m = -1 mod 2^28 (k0 = 1), whose chain needs no multiplication by k0.
pub(super) fn instance(v: usize, friendly: bool) -> Kernel {
    if friendly {
        instance_of::<true>(v)
    } else {
        instance_of::<false>(v)
    }
}

/// A kernel's signature: `(out, a, b, m, k0, s)`.
type Kernel = unsafe fn(*mut u64, *const u64, *const u64, *const u64, u64, usize);

fn instance_of<const F: bool>(v: usize) -> Kernel {
    match v {
        9 => amm9::<F>,
        10 => amm10::<F>,
        11 => amm11::<F>,
        12 => amm12::<F>,
        13 => amm13::<F>,
        14 => amm14::<F>,
        15 => amm15::<F>,
        16 => amm16::<F>,
        17 => amm17::<F>,
        18 => amm18::<F>,
        19 => amm19::<F>,
        20 => amm20::<F>,
        _ => panic!("no AVX2 kernel for {v} registers"),
    }
}
