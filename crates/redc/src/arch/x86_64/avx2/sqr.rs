//! The AVX2 almost-Montgomery square in radix 2^28: the product kernel's
//! window, quotient chain and end (`amm`), with the operand part halved as
//! in the dedicated squarings of Koc, Acar and Kaliski ("Analyzing and
//! comparing Montgomery multiplication algorithms", 1996, section on
//! squaring): a^2 = sum a_i^2 2^(56 i) + sum_{i<j} 2 a_i a_j 2^(28 (i+j)).
//!
//! Step i = 4g + k adds (2 a_i) a_j for j > i only, at digits 2i + 1 and up:
//! the window's registers below that are skipped and the one it starts in
//! has its lower lanes masked off, so g is a literal in every step (a match
//! over g selects the unrolled group). The diagonal a_i^2 enters with the
//! registers themselves: the window starts as the first registers of
//! D = sum a_i^2 2^(56 i), and each register that slides in at the top is
//! D's next. Digit i + 1 is complete in its operand part before step i ends
//! (its products come from steps j <= i / 2 and D), so the quotient chain
//! has no operand term: t_i = e_i + q_{i-2} m_2 + q_{i-1} m_1 + c_i.
//!
//! Bounds: a lane collects at most s / 2 + 1 operand products below 2^57.03
//! (2 a_i < 2^30) and s modulus products below 2^56.01, below 2^64 for the
//! kernels' s <= 57. Secrets: the operand and the quotients; s and V public.

use core::arch::asm;
use core::arch::x86_64::*;

use super::{PAD, lane, operand_len};

const MASK: u64 = (1 << 28) - 1;

/// `acc += x * ([p + off] & keep)` lane by lane, inside the kernels' unsafe
/// block (as `madd`).
macro_rules! madd_masked {
    ($acc:expr, $x:expr, $p:expr, $off:expr, $keep:expr) => {
        asm!(
            "vpand {t}, {k}, [{p} + {off}]",
            "vpmuludq {t}, {t}, {x}",
            "vpaddq {a}, {a}, {t}",
            a = inout(ymm_reg) $acc,
            t = out(ymm_reg) _,
            x = in(ymm_reg) $x,
            k = in(ymm_reg) $keep,
            p = in(reg) $p,
            off = const $off,
            options(pure, readonly, nostack, preserves_flags),
        )
    };
}

macro_rules! kernel {
    ($name:ident, $V:literal, [$($v:tt)*], [$($r:tt)*], [$($gl:literal)*]) => {
        /// `out = amm(a, a)` for s digits with this instance's register
        /// count; see the module documentation.
        ///
        /// # Safety
        /// AVX2 must be available. `out`, `a` and `m` point to operands of
        /// `operand_len(V)` u64 in the layout of `super::Operand`, `diag` to
        /// 8 V writable u64; `out` differs from `a` and `m`; s is in
        /// 4 V - 6 ..= 4 V - 3; a < 2m with digits below 2^28 + 2^9;
        /// 4m < 2^(28 s).
        #[target_feature(enable = "avx2")]
        #[allow(unused_assignments)] // the last step's chain values
        #[allow(unused_comparisons)] // register 0 against the first register of a step
        pub(super) unsafe fn $name(out: *mut u64, a: *const u64, m: *const u64, k0: u64, s: usize, diag: *mut u64) {
            const V: usize = $V;
            const SH: usize = operand_len(V) / 4;
            // SAFETY: as the product kernel's (`amm`); `diag` holds 8 V
            // words, and D's registers are read at 4 (g + V) + 3 < 8 V.
            unsafe {
                let ap = a.add(PAD);
                let mp = m.add(PAD);
                let (m0, m1, m2) = (*mp, *mp.add(1), *mp.add(2));
                // D: a_i^2 at digit 2 i, zero between and above.
                for w in 0..8 * V {
                    *diag.add(w) = 0;
                }
                for i in 0..s {
                    let ai = *ap.add(i);
                    *diag.add(2 * i) = ai * ai;
                }
                let mut acc = [$( _mm256_loadu_si256(diag.add(4 * $v).cast()), )*];
                let keep_even = _mm256_set_epi64x(-1, -1, -1, 0);
                let keep_odd = _mm256_set_epi64x(-1, 0, 0, 0);
                let (mut e_cur, mut q_prev, mut q_prev2, mut s_prev) = (*diag, 0u64, 0u64, 0u64);
                macro_rules! step {
                    ($g:expr, $k:literal) => {{
                        const G: usize = $g;
                        const K: usize = $k;
                        // The first register holding digit 2 i + 1.
                        const V0: usize = G + (2 * K + 1) / 4;
                        let ai2 = *ap.add(4 * G + K) << 1;
                        let bv = _mm256_set1_epi64x((ai2 as u32) as i64);
                        let ak = ap.add(K * SH);
                        $(
                            if $v == V0 {
                                madd_masked!(acc[$v], bv, ak, 32 * $v, if K % 2 == 0 { keep_even } else { keep_odd });
                            } else if $v > V0 {
                                madd!(acc[$v], bv, ak, 32 * $v);
                            }
                        )*
                        const NEXT: usize = K + 1;
                        let e_next = lane(acc[NEXT / 4], NEXT % 4);
                        let carry = s_prev.wrapping_add(q_prev.wrapping_mul(m0)) >> 28;
                        let t = e_cur
                            .wrapping_add(q_prev2.wrapping_mul(m2))
                            .wrapping_add(q_prev.wrapping_mul(m1))
                            .wrapping_add(carry);
                        let q = t.wrapping_mul(k0) & MASK;
                        let qv = _mm256_set1_epi64x((q_prev as u32) as i64);
                        let mk = mp.add(((K + 3) % 4) * SH);
                        $( madd!(acc[$v], qv, mk, 32 * $v + if K == 0 { 32 } else { 0 }); )*
                        e_cur = e_next;
                        q_prev2 = q_prev;
                        q_prev = q;
                        s_prev = t;
                    }};
                }
                macro_rules! group {
                    ($g:literal) => {{
                        step!($g, 0);
                        step!($g, 1);
                        step!($g, 2);
                        step!($g, 3);
                        $( acc[$r] = acc[$r + 1]; )*
                        acc[V - 1] = _mm256_loadu_si256(diag.add(4 * ($g + V)).cast());
                    }};
                }
                for g in 0..s / 4 {
                    match g {
                        $( $gl => group!($gl), )*
                        _ => unreachable!(),
                    }
                }
                // The last s mod 4 steps: s = 4 V - 6 or 4 V - 5 leave 2 or 3
                // steps of group V - 2; s = 4 V - 4 or 4 V - 3 leave 0 or 1 of
                // group V - 1.
                const G2: usize = V - 2;
                const G1: usize = V - 1;
                match s % 4 {
                    0 => finish!(0, acc, [$($v)*], mp, SH, q_prev, s_prev, m0, out),
                    1 => {
                        step!(G1, 0);
                        finish!(1, acc, [$($v)*], mp, SH, q_prev, s_prev, m0, out)
                    }
                    2 => {
                        step!(G2, 0);
                        step!(G2, 1);
                        finish!(2, acc, [$($v)*], mp, SH, q_prev, s_prev, m0, out)
                    }
                    _ => {
                        step!(G2, 0);
                        step!(G2, 1);
                        step!(G2, 2);
                        finish!(3, acc, [$($v)*], mp, SH, q_prev, s_prev, m0, out)
                    }
                }
            }
        }
    };
}

kernel!(sqr9, 9, [0 1 2 3 4 5 6 7 8], [0 1 2 3 4 5 6 7], [0 1 2 3 4 5 6 7 8]);
kernel!(sqr10, 10, [0 1 2 3 4 5 6 7 8 9], [0 1 2 3 4 5 6 7 8], [0 1 2 3 4 5 6 7 8 9]);
kernel!(sqr11, 11, [0 1 2 3 4 5 6 7 8 9 10], [0 1 2 3 4 5 6 7 8 9], [0 1 2 3 4 5 6 7 8 9 10]);
kernel!(sqr12, 12, [0 1 2 3 4 5 6 7 8 9 10 11], [0 1 2 3 4 5 6 7 8 9 10], [0 1 2 3 4 5 6 7 8 9 10 11]);
kernel!(sqr13, 13, [0 1 2 3 4 5 6 7 8 9 10 11 12], [0 1 2 3 4 5 6 7 8 9 10 11], [0 1 2 3 4 5 6 7 8 9 10 11 12]);
kernel!(sqr14, 14, [0 1 2 3 4 5 6 7 8 9 10 11 12 13], [0 1 2 3 4 5 6 7 8 9 10 11 12], [0 1 2 3 4 5 6 7 8 9 10 11 12 13]);
kernel!(sqr15, 15, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14], [0 1 2 3 4 5 6 7 8 9 10 11 12 13], [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14]);

/// The instance for `v` registers.
pub(super) fn instance(v: usize) -> unsafe fn(*mut u64, *const u64, *const u64, u64, usize, *mut u64) {
    match v {
        9 => sqr9,
        10 => sqr10,
        11 => sqr11,
        12 => sqr12,
        13 => sqr13,
        14 => sqr14,
        15 => sqr15,
        _ => panic!("no AVX2 squaring for {v} registers"),
    }
}
