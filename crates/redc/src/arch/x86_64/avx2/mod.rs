//! The AVX2 kernel family: radix-2^28 almost-Montgomery products on 256-bit
//! `vpmuludq` (`amm`) and the constant-time fixed-window exponentiation
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
//!
//! Where it costs no register, the kernels run over m' = k0 m rather than
//! m (k0 = -m^-1 mod 2^28): m' = -1 mod 2^28, so the quotient digit is the
//! running sum's low digit and the scalar chain that bounds the kernel
//! loses a multiplication (`amm`, "the quotient chain"). Powers mod m' are
//! congruent mod m; the result is reduced mod m once, by 28 masked
//! subtractions (`reduce_multiple`). Which moduli get the family at all is
//! measured per CPU and register count ([`pays`]).

/// `acc += x * [p + off]` lane by lane (32 x 32 -> 64 bits), inside the
/// kernels' unsafe block: `p + off` is a 32-byte aligned address inside an
/// operand. Written as asm so that the compiler neither hoists the loads
/// into stack copies nor widens the multiplication.
macro_rules! madd {
    ($acc:expr, $x:expr, $p:expr, $off:expr) => {
        asm!(
            "vpmuludq {t}, {x}, [{p} + {off}]",
            "vpaddq {a}, {a}, {t}",
            a = inout(ymm_reg) $acc,
            t = out(ymm_reg) _,
            x = in(ymm_reg) $x,
            p = in(reg) $p,
            off = const $off,
            options(pure, readonly, nostack, preserves_flags),
        )
    };
}

/// [`madd!`] for the instances above 15 registers, compiled with AVX-512VL
/// so that the accumulators may sit in ymm16-ymm31: products read from
/// below offset 448 (the first 14 registers' span of an operand copy)
/// through [`madd!`] itself (VEX asm, ymm0-ymm15), the others through the
/// same two instructions written as intrinsics (the inline assembler takes
/// the crate's features, not the function's, and refuses the upper
/// registers). The split measured faster than intrinsics throughout
/// (docs/PERFORMANCE.md, "AVX2 family: 32 ymm registers under AVX-512VL,
/// not zmm"). The kernels hide their operand pointers from
/// the optimiser once a group ([`opaque`]), so the loads stay in the loop
/// rather than becoming stack copies.
macro_rules! madd_vl {
    ($acc:expr, $x:expr, $p:expr, $off:expr) => {
        if $off < 32 * 14 {
            madd!($acc, $x, $p, $off)
        } else {
            $acc = _mm256_add_epi64(
                $acc,
                _mm256_mul_epu32($x, _mm256_load_si256($p.add($off / 8).cast())),
            )
        }
    };
}

/// `p`, as a value the optimiser cannot see through: loads from it may not
/// be hoisted out of the loop that calls this.
#[inline(always)]
fn opaque(mut p: *const u64) -> *const u64 {
    // SAFETY: an empty asm statement; it only passes the pointer through.
    unsafe { core::arch::asm!("/* {0} */", inout(reg) p, options(readonly, nostack, preserves_flags)) };
    p
}

/// Lane `k` (constant) of a register.
#[inline(always)]
fn lane(x: core::arch::x86_64::__m256i, k: usize) -> u64 {
    use core::arch::x86_64::*;
    // SAFETY: AVX2 is enabled in every caller (the kernels below).
    unsafe {
        let lo = _mm256_castsi256_si128(x);
        let hi = _mm256_extracti128_si256::<1>(x);
        (match k {
            0 => _mm_cvtsi128_si64(lo),
            1 => _mm_extract_epi64::<1>(lo),
            2 => _mm_cvtsi128_si64(hi),
            _ => _mm_extract_epi64::<1>(hi),
        }) as u64
    }
}

/// The end of a product, inside a kernel's unsafe block, after its last
/// step i = s - 1 (RM = s mod 4, a literal): the last quotient's modulus
/// update (from the copy of m shifted by RM - 1), the last carry into digit
/// s (lane RM of the first register, whose lower lanes are spent and
/// cleared), two vector carry rounds (digits below 2^28 + 2^9 after them),
/// and the result's digits stored into every copy of `out`.
macro_rules! finish {
    ($madd:ident, $rm:literal, $acc:ident, [$($v:tt)*], $mp:ident, $sh:ident, $q:ident, $t:ident, $m0:ident, $out:ident) => {{
        const RM: usize = $rm;
        let qv = _mm256_set1_epi64x(($q as u32) as i64);
        let mk = $mp.add(((RM + 3) % 4) * $sh);
        $( $madd!($acc[$v], qv, mk, 32 * $v + if RM == 0 { 32 } else { 0 }); )*
        let carry = $t.wrapping_add($q.wrapping_mul($m0)) >> 28;
        let keep = _mm256_set_epi64x(-1, -((RM < 3) as i64), -((RM < 2) as i64), -((RM < 1) as i64));
        let mut cl = [0i64; 4];
        cl[RM] = carry as i64;
        let cv = _mm256_set_epi64x(cl[3], cl[2], cl[1], cl[0]);
        $acc[0] = _mm256_add_epi64(_mm256_and_si256($acc[0], keep), cv);
        let mask = _mm256_set1_epi64x(((1u64 << 28) - 1) as i64);
        for _round in 0..2 {
            let mut prev = _mm256_setzero_si256();
            $(
                let hi = _mm256_permute4x64_epi64::<0b10_01_00_11>(_mm256_srli_epi64::<28>($acc[$v]));
                let lo = _mm256_and_si256($acc[$v], mask);
                let up = _mm256_blend_epi32::<0b0000_0011>(hi, prev);
                prev = hi;
                $acc[$v] = _mm256_add_epi64(lo, up);
            )*
        }
        // Digit j of the result is lane RM + j: copy c puts it at PAD + c + j.
        for c in 0..4 {
            let base = $out.add(c * $sh + PAD + c - RM);
            $( _mm256_storeu_si256(base.add(4 * $v).cast(), $acc[$v]); )*
        }
    }};
}

mod amm;
mod choice;

pub use amm::{MAX_VECTORS, MAX_VL_VECTORS, MIN_VECTORS};
pub use choice::{calibrate, pays};

use zeroize::{Zeroize, Zeroizing};

use super::cpu::{Avx2, Avx512};
use crate::arch::portable28::{self, Modulus28, digits_for_bits};
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
    /// m itself, as trimmed limbs (`md` is k0 m where `friendly`).
    plain: Zeroizing<Vec<u64>>,
    /// Whether the kernels run over k0 m (see [`multiple_of`]).
    friendly: bool,
    token: Avx2,
    /// Present where the instances above [`MAX_VECTORS`] registers may run.
    wide: Option<Avx512>,
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
        Self::new_over(n, true)
    }

    /// [`Avx2Modulus::new`], the kernels over k0 m ([`multiple_of`]) only
    /// where `multiple` is set and k0 m needs no more registers than m (a
    /// choice by m's bit length, public).
    fn new_over(n: &[u64], multiple: bool) -> Option<Avx2Modulus> {
        let token = super::cpu::avx2()?;
        let wide = Avx512::get();
        let given = Modulus28::new(n)?;
        if !Self::fits(given.bits) {
            return None;
        }
        let plain = Zeroizing::new(given.limbs.clone());
        let friendly = multiple && registers(digits_for_bits(given.bits + 28)) == registers(given.digits());
        let md = if friendly { multiple_of(&given) } else { given };
        let v = registers(md.digits());
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
            plain,
            friendly,
            token,
            wide,
        })
    }

    /// Whether a modulus of `bits` bits fits the kernels: 811 to 1594 bits
    /// (the primes of RSA-2048 and RSA-3072) with AVX2 alone, to 2154 bits
    /// (RSA-4096's) where AVX-512VL gives the 32 ymm registers the wider
    /// instances need and the mask does not hide it. Public.
    pub fn fits(bits: usize) -> bool {
        let v = registers(digits_for_bits(bits));
        bits >= 3 && (MIN_VECTORS..=max_vectors()).contains(&v)
    }

    /// The modulus the kernels run over, for differential tests: m, or
    /// k0 m where that needs no more registers ([`Avx2Modulus::new`]).
    pub fn kernel_modulus(&self) -> &Modulus28 {
        &self.md
    }

    /// The digit count s (R = 2^(28 s)).
    pub fn digits(&self) -> usize {
        self.md.digits()
    }

    /// One kernel product for differential tests: `amm(a, b)` for a, b < 2m
    /// given as s normalised digits, returned as s normalised digits (the
    /// kernel's output carried). Panics on other lengths.
    pub fn amm_digits(&self, a: &[u64], b: &[u64]) -> Vec<u64> {
        self.chain_digits(a, Some(b), 1)
    }

    /// `iters` kernel calls in a chain, for benchmarks and differential
    /// tests: x = a, then x = amm(x, b) (`b` Some) or x = amm(x, x) (None,
    /// a square as the exponentiation computes it), each output fed back;
    /// returns x as s normalised digits. Inputs as in
    /// [`Avx2Modulus::amm_digits`].
    pub fn chain_digits(&self, a: &[u64], b: Option<&[u64]>, iters: usize) -> Vec<u64> {
        let s = self.digits();
        assert!(a.len() == s && b.is_none_or(|b| b.len() == s));
        let (mut x, mut y) = (Operand::zero(self.v), Operand::zero(self.v));
        x.set(a);
        let g = b.map(|b| {
            let mut g = Operand::zero(self.v);
            g.set(b);
            g
        });
        for _ in 0..iters {
            match &g {
                Some(g) => self.amm(&mut y, &x, g),
                None => self.square(&mut y, &x),
            }
            core::mem::swap(&mut x, &mut y);
        }
        self.checked_digits(&x)
    }

    /// A kernel output's s digits, carried, after checking its layout: the
    /// four copies agree and the slots above the digits are zero.
    fn checked_digits(&self, out: &Operand) -> Vec<u64> {
        let s = self.digits();
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

    /// `out = amm(a, a)`: the product kernel with both operands `a` (a
    /// dedicated squaring, computing the operand products above the diagonal
    /// once, measured slower than the product at every size:
    /// docs/PERFORMANCE.md, "AVX2: squares as products").
    fn square(&self, out: &mut Operand, a: &Operand) {
        self.amm(out, a, a);
    }

    /// `out = amm(a, b)`, the kernel behind the token.
    fn amm(&self, out: &mut Operand, a: &Operand, b: &Operand) {
        let _: Avx2 = self.token;
        let n = operand_len(self.v);
        assert!(out.v == self.v && a.v == self.v && b.v == self.v);
        assert!(out.quads.len() * 4 == n && a.quads.len() * 4 == n && b.quads.len() * 4 == n);
        assert!(self.v <= MAX_VECTORS || self.wide.is_some());
        let kernel = amm::instance(self.v, self.friendly);
        // SAFETY: the token proves AVX2, and `wide` AVX-512VL for the
        // instances above MAX_VECTORS (asserted above); every operand has
        // this modulus's register count and length (checked above), `out` is borrowed
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
                self.square(&mut y, &x);
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
                self.square(&mut y, &x);
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
        let mut out = portable28::from_digits(&digits, self.md.limbs.len());
        digits.zeroize();
        if self.friendly {
            reduce_multiple(&mut out, &self.plain);
        }
        out.truncate(self.plain.len());
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

/// The safe entry to the AVX2 gather: it takes the [`Avx2`] token, which
/// exists only where the CPU has AVX2 and the mask does not hide it.
impl Avx2 {
    /// [`crate::arch::gather::gather`] compiled with AVX2.
    #[inline(always)]
    pub fn gather(self, out: &mut [u64], table: &[u64], digit: u64, s: usize) {
        // SAFETY: the token proves the CPU has AVX2 and the mask allows it.
        unsafe { gather_with_avx2(out, table, digit, s) }
    }
}

#[target_feature(enable = "avx2")]
fn gather_with_avx2(out: &mut [u64], table: &[u64], digit: u64, s: usize) {
    crate::arch::gather::gather(out, table, digit, s);
}

/// The most accumulator registers an instance may use on this CPU:
/// [`MAX_VL_VECTORS`] where the [`Avx512`] token exists, else
/// [`MAX_VECTORS`].
pub fn max_vectors() -> usize {
    if Avx512::get().is_some() {
        MAX_VL_VECTORS
    } else {
        MAX_VECTORS
    }
}

/// Accumulator registers for s digits: the kernels serve s from 4 v - 6 to
/// 4 v - 3.
fn registers(s: usize) -> usize {
    (s + 3).div_ceil(4)
}

/// The modulus m' = k0 m (k0 = -m^-1 mod 2^28), the kernels' modulus where
/// it needs no more registers than m: m' = -1 mod 2^28, so its own k0 is 1
/// and each quotient digit is the low digit of the running sum, with no
/// multiplication on the scalar chain. Numbers mod m' are congruent mod m,
/// so the exponentiation runs mod m' and reduces mod m once at the end
/// ([`reduce_multiple`]).
///
/// The digit count and limb count come from m's bit length (public) plus
/// 28, never from m''s value: k0 (secret) decides only the digits' values.
/// R^2 mod m' starts from 2^(bits(m) - 1), below m <= m'.
fn multiple_of(md: &Modulus28) -> Modulus28 {
    let bits = md.bits + 28;
    let mut limbs = vec![0u64; bits.div_ceil(64)];
    let mut carry = 0u64;
    for (w, &x) in limbs
        .iter_mut()
        .zip(md.limbs.iter().chain(core::iter::repeat(&0)))
    {
        (*w, carry) = crate::limb::mac(0, x, md.k0, carry);
    }
    let m = portable28::to_digits(&limbs, digits_for_bits(bits));
    let rr = radix::r_squared::<{ portable28::DIGIT_BITS }>(&m, 1, md.bits);
    Modulus28 {
        limbs,
        bits,
        m,
        k0: 1,
        rr,
    }
}

/// `x = x mod m` for x < 2^28 m (limbs, at least m's count): 28 masked
/// subtractions of m 2^j, j from 27 down to 0, each leaving x below m 2^j.
/// Constant time in x and m.
fn reduce_multiple(x: &mut [u64], m: &[u64]) {
    let mut shifted = Zeroizing::new(vec![0u64; x.len()]);
    for j in (0..28).rev() {
        let mut carry = 0u64;
        for (k, w) in shifted.iter_mut().enumerate() {
            let wide = (m.get(k).copied().unwrap_or(0) as u128) << j;
            *w = wide as u64 | carry;
            carry = (wide >> 64) as u64;
        }
        crate::limb::reduce_once(x, 0, &shifted);
    }
}
