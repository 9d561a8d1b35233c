//! The single-modulus kernel's fixed-window exponentiation for a SECRET
//! exponent and a possibly SECRET modulus (a CRT prime too wide for the
//! dual kernel's 40 digits: RSA-6144's and RSA-8192's primes), constant
//! time in the base, the exponent and the modulus's value.
//!
//! Paper: Shand and Vuillemin, "Fast Implementations of RSA Cryptography"
//! (003), section 4.2 (the window method), on the almost-Montgomery product
//! of Zhao, Wang, Lu and Dai (002), Algorithm 1: every operand stays below
//! 2m, so no product needs a final subtraction.
//!
//! # Constant time
//!
//! - The sequence of products depends on the exponent's limb count only
//!   (public: the prime's size): `WINDOW` squarings and one product per
//!   window, whatever the window's value.
//! - The table read ([`gather`]) loads every entry and keeps one by a lane
//!   mask computed from the window's value: no address or branch depends on
//!   it.
//! - The kernel's steps are the same IFMAs, shifts and masked adds for every
//!   value of the operands and of the modulus (the module documentation of
//!   [`super`], "Normalisation").

use core::arch::x86_64::*;

use zeroize::Zeroize;

use crate::arch::portable52::{self, WINDOW};

use super::{AScratch, Digits, SingleMod, amm_with, sqr_with};
use crate::arch::x86_64::cpu::Ifma;

/// Constant-time table read: every entry is loaded, and the lanes keep
/// entry `w` (a masked move per entry and register, no secret address).
#[target_feature(enable = "avx512f")]
fn gather<const NR: usize>(out: &mut Digits<NR>, table: &[Digits<NR>], w: u64) {
    let idx = _mm512_set1_epi64(w as i64);
    let one = _mm512_set1_epi64(1);
    let zero = _mm512_setzero_si512();
    let mut acc = [zero; NR];
    let mut k = zero;
    for entry in table {
        let keep = _mm512_cmpeq_epu64_mask(idx, k);
        for r in 0..NR {
            acc[r] = _mm512_mask_mov_epi64(acc[r], keep, ld!(&entry.0[r]));
        }
        k = _mm512_add_epi64(k, one);
    }
    for r in 0..NR {
        // SAFETY: the row is 64 bytes inside a 64-byte aligned `Digits`.
        unsafe { _mm512_store_si512(out.0[r].as_mut_ptr().cast(), acc[r]) };
    }
}

/// The exponentiation's working values, kept on the heap (up to 14 KiB at
/// 20 registers) rather than on the stack, whose scrub after a private
/// operation covers a fixed 16 KiB. Wiped at the end of every run.
struct Work<const NR: usize> {
    scratch: AScratch<NR>,
    x: Digits<NR>,
    y: Digits<NR>,
    g: Digits<NR>,
    one: Digits<NR>,
}

impl<const NR: usize> Work<NR> {
    fn boxed() -> Box<Self> {
        // SAFETY: every field is an array of u64, for which all-zero bytes
        // are a valid value.
        unsafe { Box::<Self>::new_zeroed().assume_init() }
    }
}

/// `base^exp mod m`, out of the Montgomery domain but not yet fully
/// reduced (at most m), for a SECRET `exp` of public limb count and a
/// `base` below m (secret), by fixed `WINDOW`-bit windows.
///
/// # Safety
/// Call only where AVX-512F and AVX-512IFMA are available.
#[target_feature(enable = "avx512f,avx512ifma")]
fn pow_secret<const NR: usize>(m: &SingleMod<NR>, base: &Digits<NR>, exp: &[u64]) -> Digits<NR> {
    let mut work = Work::<NR>::boxed();
    let Work {
        scratch,
        x,
        y,
        g,
        one,
    } = &mut *work;
    one.0[0][0] = 1;
    // table[k] = base^k R (below 2m): table[0] = R mod m, table[1] = base R.
    let mut table = vec![Digits::<NR>::ZERO; 1 << WINDOW];
    amm_with(&mut table[0], &m.rr, one, m, scratch);
    amm_with(&mut table[1], base, &m.rr, m, scratch);
    for k in 2..(1 << WINDOW) {
        let (done, rest) = table.split_at_mut(k);
        if k % 2 == 0 {
            sqr_with(&mut rest[0], &done[k / 2], m, scratch);
        } else {
            amm_with(&mut rest[0], &done[k - 1], &done[1], m, scratch);
        }
    }
    let nw = portable52::windows_for_limbs(exp.len());
    gather(x, &table, portable52::window(exp, (nw - 1) * WINDOW) as u64);
    for w in (0..nw - 1).rev() {
        for _ in 0..WINDOW / 2 {
            sqr_with(y, x, m, scratch);
            sqr_with(x, y, m, scratch);
        }
        // WINDOW is odd: the last squaring lands in y.
        sqr_with(y, x, m, scratch);
        gather(g, &table, portable52::window(exp, w * WINDOW) as u64);
        amm_with(x, y, g, m, scratch);
    }
    // Out of the Montgomery domain: (x + Y m) / R <= m for any x < R.
    amm_with(y, x, one, m, scratch);
    let out = *y;
    for e in table.iter_mut() {
        e.zeroize();
    }
    x.zeroize();
    y.zeroize();
    g.zeroize();
    scratch.zeroize();
    out
}

// The window loop above takes an odd number of squarings per window.
const _: () = assert!(WINDOW % 2 == 1);

impl Ifma {
    /// `base^exp` for a secret exponent (`pow_secret`): at most m, not yet
    /// fully reduced.
    #[inline(always)]
    pub fn single_pow_secret<const NR: usize>(
        self,
        m: &SingleMod<NR>,
        base: &Digits<NR>,
        exp: &[u64],
    ) -> Digits<NR> {
        // SAFETY: the token proves the CPU has AVX-512F and IFMA and the mask allows them.
        unsafe { pow_secret::<NR>(m, base, exp) }
    }
}
