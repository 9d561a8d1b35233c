//! The AVX2 kernel family: radix-2^28 almost-Montgomery products on 256-bit
//! `vpmuludq` ([`amm`]) and the constant-time fixed-window exponentiation
//! over them ([`Avx2Modulus::pow_secret`]), for CPUs with AVX2 and without
//! AVX-512 IFMA. Portable twin: [`crate::arch::portable28`] (the same
//! values, digit for digit once normalised).
//!
//! The exponentiation follows the IFMA family's (`super::ifma`): the
//! Montgomery domain of R = 2^(28 s), fixed 5-bit windows over a 32-entry
//! table of almost-reduced powers read whole at every window (Gueron,
//! "Efficient software implementations of modular exponentiation", 2012),
//! five squarings and a product per window, one conditional subtraction at
//! the end. Secrets: the base, the exponent's
//! bits, the modulus's value (a CRT prime); public: sizes and the exponent's
//! length.

mod amm;

pub use amm::{MAX_VECTORS, MIN_VECTORS};

use zeroize::{Zeroize, Zeroizing};

use super::cpu::Avx2;
use crate::arch::portable28::{self, Modulus28};
use crate::arch::radix::{self, WINDOW, window, windows_for_limbs};

/// Zero digits kept below each copy's first digit (the kernel's shifted
/// reads and its stores of the spent lanes reach up to 3 below).
const PAD: usize = 4;

/// u64 words of an operand for `v` registers: four copies of 4 v + 12 words
/// (PAD, 4 v digit slots, and the 4 slots above that the reads of m shifted
/// down by one register reach, rounded to whole registers).
pub(crate) const fn operand_len(v: usize) -> usize {
    4 * (4 * v + 12)
}

/// One 256-bit register's worth of digits, aligned as the kernel loads it.
#[derive(Clone, Copy, Default)]
#[repr(C, align(32))]
struct Quad([u64; 4]);

/// A number in the kernel's layout: four copies of its digits, copy c
/// shifted up by c digits, zero elsewhere. Wiped on drop.
struct Operand {
    quads: Vec<Quad>,
    v: usize,
}

impl Operand {
    fn zero(v: usize) -> Operand {
        Operand {
            quads: vec![Quad::default(); operand_len(v) / 4],
            v,
        }
    }

    fn words(&self) -> &[u64] {
        // SAFETY: `Quad` is `repr(C)` over `[u64; 4]`: the quads are
        // contiguous u64 words.
        unsafe { core::slice::from_raw_parts(self.quads.as_ptr().cast(), self.quads.len() * 4) }
    }

    fn words_mut(&mut self) -> &mut [u64] {
        // SAFETY: as in `words`.
        unsafe { core::slice::from_raw_parts_mut(self.quads.as_mut_ptr().cast(), self.quads.len() * 4) }
    }

    /// Copy 0's 4 v digit slots.
    fn digits(&self) -> &[u64] {
        &self.words()[PAD..PAD + 4 * self.v]
    }

    /// Set every copy from `digits` (at most 4 v digits, the rest zero).
    fn set(&mut self, digits: &[u64]) {
        let sh = operand_len(self.v) / 4;
        let slots = 4 * self.v;
        let w = self.words_mut();
        for c in 0..4 {
            let copy = &mut w[c * sh + PAD + c..c * sh + PAD + c + slots];
            copy.fill(0);
            copy[..digits.len()].copy_from_slice(digits);
        }
    }
}

impl Drop for Operand {
    fn drop(&mut self) {
        self.words_mut().zeroize();
    }
}

/// An odd modulus prepared for the AVX2 exponentiation: its radix-2^28
/// form and constants, and m, R^2 mod m and 1 as kernel operands. Holds the
/// AVX2 token: one exists only where AVX2 may run. Secret like the modulus
/// (wiped on drop); its size is public.
pub struct Avx2Modulus {
    md: Modulus28,
    v: usize,
    m: Operand,
    rr: Operand,
    one: Operand,
    token: Avx2,
}

impl core::fmt::Debug for Avx2Modulus {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Avx2Modulus")
            .field("bits", &self.md.bits)
            .field("registers", &self.v)
            .finish_non_exhaustive()
    }
}

impl Avx2Modulus {
    /// The modulus n (odd, >= 3) prepared for the kernels, or None where
    /// AVX2 may not run (no CPU support, masked, or the portable path
    /// requested) or n's size is outside the kernels' range
    /// ([`Avx2Modulus::fits`]).
    pub fn new(n: &[u64]) -> Option<Avx2Modulus> {
        let token = Avx2::get()?;
        if !super::avx2_available() {
            return None;
        }
        let md = Modulus28::new(n)?;
        if !Self::fits(md.bits) {
            return None;
        }
        let v = (md.digits() + 3).div_ceil(4);
        let operand = |digits: &[u64]| {
            let mut x = Operand::zero(v);
            x.set(digits);
            x
        };
        let m = operand(&md.m);
        let rr = operand(&md.rr);
        let one = operand(&[1]);
        Some(Avx2Modulus {
            md,
            v,
            m,
            rr,
            one,
            token,
        })
    }

    /// Whether a modulus of `bits` bits fits the kernels (811 to 1594 bits:
    /// the primes of RSA-2048 and RSA-3072). Public.
    pub fn fits(bits: usize) -> bool {
        let v = (portable28::digits_for_bits(bits) + 3).div_ceil(4);
        bits >= 3 && (MIN_VECTORS..=MAX_VECTORS).contains(&v)
    }

    /// The digit count s (R = 2^(28 s)).
    pub fn digits(&self) -> usize {
        self.md.digits()
    }

    /// One kernel product for differential tests: `amm(a, b)` for a, b < 2m
    /// given as s normalised digits, returned as s normalised digits (the
    /// kernel's output carried). Panics on other lengths.
    pub fn amm_digits(&self, a: &[u64], b: &[u64]) -> Vec<u64> {
        let s = self.digits();
        assert!(a.len() == s && b.len() == s);
        let (mut x, mut y, mut out) = (
            Operand::zero(self.v),
            Operand::zero(self.v),
            Operand::zero(self.v),
        );
        x.set(a);
        y.set(b);
        self.amm(&mut out, &x, &y);
        // The copies agree and the slots above the digits stay zero.
        let sh = operand_len(self.v) / 4;
        let w = out.words();
        for c in 1..4 {
            assert_eq!(
                w[c * sh + PAD + c..c * sh + PAD + c + 4 * self.v],
                w[PAD..PAD + 4 * self.v]
            );
        }
        assert!(out.digits()[s..].iter().all(|&d| d == 0));
        let mut digits = out.digits()[..s].to_vec();
        assert_eq!(radix::normalize::<{ portable28::DIGIT_BITS }>(&mut digits), 0);
        digits
    }

    /// `out = amm(a, b)`, the kernel behind the token.
    fn amm(&self, out: &mut Operand, a: &Operand, b: &Operand) {
        let _: Avx2 = self.token;
        let n = operand_len(self.v);
        assert!(out.v == self.v && a.v == self.v && b.v == self.v);
        assert!(out.quads.len() * 4 == n && a.quads.len() * 4 == n && b.quads.len() * 4 == n);
        let kernel = amm::instance(self.v);
        // SAFETY: the token proves AVX2; every operand has this modulus's
        // register count and length (checked above), `out` is borrowed
        // mutably so it differs from the others, s = digits() is in
        // 4 v - 6 ..= 4 v - 3 by the choice of v, and the values are below
        // 2m with redundant digits below 2^28 + 2^9 (every operand comes from
        // `set` with reduced digits or from the kernel).
        unsafe {
            kernel(
                out.words_mut().as_mut_ptr(),
                a.words().as_ptr(),
                b.words().as_ptr(),
                self.m.words().as_ptr(),
                self.md.k0,
                self.digits(),
            )
        };
    }

    /// `base^exp mod m`, fully reduced, in m's trimmed limb count; `base < m`
    /// (limbs). Constant time in the base, the exponent's bits and m's value:
    /// fixed 5-bit windows, every table entry read at every window. The
    /// exponent's length is public.
    pub fn pow_secret(&self, base: &[u64], exp: &[u64]) -> Vec<u64> {
        let v = self.v;
        let slots = 4 * v;
        let mut b = Operand::zero(v);
        let mut digits = Zeroizing::new(portable28::to_digits(base, self.digits()));
        b.set(&digits);
        // The table: entry k = base^k R mod m (< 2m) as 4 v digit slots.
        let mut table = Zeroizing::new(vec![0u64; slots << WINDOW]);
        let mut x = Operand::zero(v);
        let mut y = Operand::zero(v);
        let mut t1 = Operand::zero(v);
        self.amm(&mut y, &self.rr, &self.one);
        table[..slots].copy_from_slice(y.digits());
        self.amm(&mut t1, &b, &self.rr);
        table[slots..2 * slots].copy_from_slice(t1.digits());
        for k in 2..(1 << WINDOW) {
            if k % 2 == 0 {
                x.set(&table[(k / 2) * slots..(k / 2 + 1) * slots]);
                self.amm(&mut y, &x, &x);
            } else {
                x.set(&table[(k - 1) * slots..k * slots]);
                self.amm(&mut y, &x, &t1);
            }
            table[k * slots..(k + 1) * slots].copy_from_slice(y.digits());
        }
        // The windows, from the top.
        let nw = windows_for_limbs(exp.len());
        let mut g = Operand::zero(v);
        let mut entry = Zeroizing::new(vec![0u64; slots]);
        self.gather(&mut x, &table, window(exp, (nw - 1) * WINDOW), &mut entry);
        for w in (0..nw - 1).rev() {
            for _ in 0..WINDOW {
                self.amm(&mut y, &x, &x);
                core::mem::swap(&mut x, &mut y);
            }
            self.gather(&mut g, &table, window(exp, w * WINDOW), &mut entry);
            self.amm(&mut y, &x, &g);
            core::mem::swap(&mut x, &mut y);
        }
        // Out of the domain: amm(x, 1) <= m, then one conditional subtraction.
        self.amm(&mut y, &x, &self.one);
        let s = self.digits();
        digits.copy_from_slice(&y.digits()[..s]);
        let top = radix::normalize::<{ portable28::DIGIT_BITS }>(&mut digits);
        debug_assert_eq!(top, 0);
        radix::final_reduce::<{ portable28::DIGIT_BITS }>(&self.md.m, &mut digits);
        let out = portable28::from_digits(&digits, self.md.limbs.len());
        digits.zeroize();
        out
    }

    /// `out = table[idx]` in every copy, reading every entry (constant time
    /// in `idx`); `entry` holds 4 v digit slots.
    fn gather(&self, out: &mut Operand, table: &[u64], idx: usize, entry: &mut [u64]) {
        let done = super::gather_avx2(entry, table, idx as u64, entry.len());
        debug_assert!(done);
        out.set(entry);
    }
}
